//! Run one job on a file with flashlab's real-time runner and print IOPS (for bench/).
//!
//! ```text
//! runjob FILE [--rw randread] [--bs 4096] [--iodepth 32] [--size BYTES] [--runtime SECS]
//!             [--ioengine io_uring|psync] [--buffered] [--create] [--ramp SECS]
//! ```
//! With `--create` the file is written sequentially first (to `--size`). `--runtime` makes the
//! job time-based. Prints one line: `iops=… mbs=… p50_us=… p99_us=… cpu_ns_per_io=…`.

use flashlab_jobs::Rw;
use flashlab_real::engine::choose_engine;
use flashlab_real::runner::{open_file, run_job, RealJob};
use std::path::PathBuf;
use std::time::Duration;

fn main() {
    if let Err(e) = real_main() {
        eprintln!("runjob: {e}");
        std::process::exit(1);
    }
}

fn real_main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut path: Option<PathBuf> = None;
    let (mut rw, mut bs, mut qd, mut size, mut runtime, mut ramp) =
        (Rw::RandRead, 4096u64, 32u32, 256u64 << 20, None, 0.0);
    let (mut engine, mut buffered, mut create) = (None::<String>, false, false);
    while let Some(a) = args.next() {
        let mut val = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--rw" => rw = Rw::from_fio(&val("--rw")?).ok_or("bad --rw")?,
            "--bs" => bs = val("--bs")?.parse().map_err(|e| format!("--bs: {e}"))?,
            "--iodepth" => qd = val("--iodepth")?.parse().map_err(|e| format!("--iodepth: {e}"))?,
            "--size" => size = val("--size")?.parse().map_err(|e| format!("--size: {e}"))?,
            "--runtime" => runtime = Some(val("--runtime")?.parse::<f64>().map_err(|e| format!("--runtime: {e}"))?),
            "--ramp" => ramp = val("--ramp")?.parse::<f64>().map_err(|e| format!("--ramp: {e}"))?,
            "--ioengine" => engine = Some(val("--ioengine")?),
            "--buffered" => buffered = true,
            "--create" => create = true,
            p if !p.starts_with("--") && path.is_none() => path = Some(PathBuf::from(p)),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let path = path.ok_or("usage: runjob FILE [options]")?;
    let (kind, note) = choose_engine(engine.as_deref()).map_err(|e| e.to_string())?;
    if let Some(n) = note {
        eprintln!("runjob: {n}");
    }
    let file = open_file(&path, !buffered, create).map_err(|e| e.to_string())?;
    if create {
        let mut w = RealJob::new("create", Rw::Write, 1 << 20, size);
        w.settings.iodepth = 4;
        w.engine = kind;
        w.direct = !buffered;
        w.settings.end_fsync = true;
        run_job(&path, &file, &w, &mut |_| {}).map_err(|e| e.to_string())?;
    }
    let mut job = RealJob::new("runjob", rw, bs, size);
    job.settings.iodepth = qd;
    job.engine = kind;
    job.direct = !buffered;
    job.settings.ramp_ns = Duration::from_secs_f64(ramp).as_nanos() as u64;
    if let Some(r) = runtime {
        job.settings.runtime_ns = Some(Duration::from_secs_f64(r).as_nanos() as u64);
        job.settings.time_based = true;
    }
    let r = run_job(&path, &file, &job, &mut |_| {}).map_err(|e| e.to_string())?;
    let d = if rw.has_reads() && !rw.has_writes() { &r.read } else { &r.write };
    let ios = (r.read.ios + r.write.ios).max(1);
    println!(
        "engine={} iops={:.0} mbs={:.1} p50_us={:.1} p99_us={:.1} cpu_ns_per_io={:.0}",
        kind.name(),
        d.iops(),
        d.bw_bytes_per_sec() / 1e6,
        d.clat.percentile(50.0) as f64 / 1e3,
        d.clat.percentile(99.0) as f64 / 1e3,
        (r.cpu.usr_ns + r.cpu.sys_ns) as f64 / ios as f64
    );
    Ok(())
}
