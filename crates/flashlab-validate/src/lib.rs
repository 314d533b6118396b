//! `flashlab validate-fs`: is flashlab's ext4 model right? One workload runs twice — on the
//! kernel's ext4 in a loop-mounted image on tmpfs, its block requests traced, and on the
//! ext4 model over the same image's layout — and every request is classed (file data,
//! journal, inode tables, bitmaps, descriptors, directories, flushes, discards) from the
//! image's own layout. The report puts model beside kernel per class (requests, bytes,
//! flushes, FUA, where the writes land), per SQLite commit, and for the free-space map after
//! fill workloads (free-extent sizes, 4 MiB windows holding free and allocated blocks).
//!
//! Not for: other filesystems (the kernel side is ext4 only), simulated devices' timing (the
//! model's device only sets its clock).
//!
//! Modules, one job each: [`options`] (workloads, mount options, sizes), `ops` (a workload
//! as file operations), `image` (mkfs, dumpe2fs, loop, mount, cleanup), `kernel_run` and
//! `model_run` (the operations on each side), `sqlite_run` (real SQLite and its replay),
//! `requests` (both sides' requests in one form), `classify`, `compare` (per-class
//! totals and errors), `freemap`, `fiemap`, [`report`], `text` (its terminal tables).
//!
//! ```no_run
//! use flashlab_validate::options::{Mount, Options, Workload};
//! let o = Options::new(Workload::parse("fill").unwrap(), Mount::Default);
//! let report = flashlab_validate::run(&o).unwrap(); // needs root
//! print!("{}", report.render_text());
//! ```

pub(crate) mod classify;
pub mod clock;
pub(crate) mod compare;
pub(crate) mod error;
pub(crate) mod f2fs_classify;
pub mod f2fs_events;
pub mod f2fs_run;
pub(crate) mod fiemap;
pub(crate) mod freemap;
pub mod guest;
pub(crate) mod image;
pub(crate) mod kernel_run;
pub(crate) mod model_run;
pub(crate) mod mounted;
pub(crate) mod ops;
pub mod options;
pub mod report;
pub(crate) mod requests;
pub(crate) mod sqlite_run;
pub(crate) mod text;

pub use error::Error;

use classify::Classifier;
use compare::{rows, tally};
use flashlab_lab::system::SimSystem;
use flashlab_simfs::FS_BLOCK;
use image::Image;
use options::{Options, Workload};
use report::{FreeMaps, PerCommit, Placement, Report};
use requests::{Req, ReqOp};

/// Run `o` on both sides and compare.
pub fn run(o: &Options) -> Result<Report, Error> {
    if o.fs == options::FsChoice::F2fs {
        return f2fs_run::run(o);
    }
    o.check()?;
    let mut img = Image::make(o)?;
    let layout = img.layout.clone();
    let capacity = layout.blocks * FS_BLOCK;
    let mut notes = Vec::new();
    // File timestamps come from the kernel's coarse clock (a jiffy), which runs in wall time;
    // the model runs in its device's virtual time. A write dirties its inode (and the fsync
    // after it commits the journal) only when that clock moved since the file's last update.
    let tick = clock::coarse_tick_ns();
    let (kernel_reqs, model_trace, sys, kernel_extents) = match o.workload {
        Workload::Sqlite(mode) => {
            // The recording VFS read the coarse clock at every operation (before each write's
            // system call); the replay's writebacks take the file timestamps from the clock of
            // each file's latest write.
            let k = sqlite_run::run_kernel(o, &img.m, mode, false)?;
            let (trace, _, sys) = sqlite_run::run_model(o, &layout, &k.log, Some(&k.clocks))?;
            let writes: Vec<u64> = k
                .log
                .iter()
                .zip(&k.clocks)
                .filter(|(e, _)| matches!(e, flashlab_sqlite::vfs_recorder::Event::Write { .. }))
                .map(|(_, &c)| c)
                .collect();
            notes.push(clock_note(writes.len(), writes.windows(2).filter(|w| w[0] != w[1]).count(), k.wall_ns, tick));
            (requests::from_kernel(&k.events), trace, sys, None)
        }
        _ => {
            // The kernel run read the coarse clock before every operation; the model takes
            // its file timestamps from those values, so it dirties inodes where the kernel did
            // however fast or slowly the kernel ran.
            let free = model_run::system(o, &layout)?.fs().free_bytes();
            let script = ops::script(o, free);
            let k = kernel_run::run(&img.m, &script, o.seed, false)?;
            let m = model_run::run(o, &layout, &script, Some(&k.clock))?;
            notes.push(clock_note(k.clock.len(), k.clock.windows(2).filter(|w| w[0] != w[1]).count(), k.wall_ns, tick));
            (requests::from_kernel(&k.events), m.trace, m.system, Some(k.extents))
        }
    };
    img.unmount()?;
    let dump = img.dumpe2fs()?;
    let kernel_dirs = img.dir_blocks("/")?;
    let model_reqs = requests::from_model(&model_trace, img.max_request);
    let model_dirs = sys.fs().inplace().map(|i| i.dir_blocks().to_vec()).unwrap_or_default();
    if let Ok(n) = std::env::var("FLASHLAB_VALIDATE_DUMP").map(|v| v.parse::<usize>().unwrap_or(0)) {
        for (side, reqs, dirs) in [("kernel", &kernel_reqs, &kernel_dirs), ("model", &model_reqs, &model_dirs)] {
            let c = Classifier::new(&layout, dirs);
            for r in reqs.iter().skip(n).take(60) {
                eprintln!("{side} {:?} {} {} +{}", r.op, c.class(r).name(), r.offset / FS_BLOCK, r.bytes / FS_BLOCK);
            }
        }
    }
    let km = tally(&kernel_reqs, &Classifier::new(&layout, &kernel_dirs), capacity);
    let mm = tally(&model_reqs, &Classifier::new(&layout, &model_dirs), capacity);
    let classes = rows(&mm, &km);
    let per_commit = match o.workload {
        Workload::Sqlite(_) => Some(per_commit(o.transactions, &model_reqs, &kernel_reqs)),
        _ => None,
    };
    let free_space = match o.workload {
        Workload::Fill | Workload::AgeFill => {
            let kfree = freemap::free_runs_from_dumpe2fs("dumpe2fs", &dump)?;
            let mfree = sys.fs().inplace().map(|i| i.free_space()).unwrap_or_default();
            Some(free_maps(freemap::free_map(&mfree, capacity), freemap::free_map(&kfree, capacity)))
        }
        _ => None,
    };
    let placement = kernel_extents.map(|k| placement(&sys, &k));
    let reads = km.get(&classify::Class::Read).map_or(0, |t| t.requests);
    if reads > 0 {
        notes.push(format!(
            "the kernel read {reads} blocks' worth of requests (metadata not in its cache); the model keeps all metadata cached and reads nothing"
        ));
    }
    notes.push(format!(
        "requests: the kernel's as issued to the loop device (block_rq_issue, after merging and splitting); the model's split at the loop queue's {} KiB limit; a request is classed by its first block",
        img.max_request >> 10
    ));
    Ok(Report {
        version: 1,
        fs: "ext4".into(),
        behaviour: Vec::new(),
        workload: o.workload.name().to_string(),
        mount: o.mount.name().to_string(),
        image_bytes: o.image_bytes,
        mkfs: format!("mkfs.ext4 -b 4096 -g {}", o.blocks_per_group),
        kernel: format!("Linux {} ext4, loop device over a file in {}", kernel_release(), o.image_dir.display()),
        model: format!(
            "flashlab ext4 model ({}) over the image's layout, on sim:{}",
            model_run::fs_config(o.mount).label(),
            o.model_profile
        ),
        classes,
        per_commit,
        free_space,
        placement,
        notes,
    })
}

/// The note saying where the model's file timestamps came from.
fn clock_note(ops: usize, moved: usize, wall_ns: u64, tick: u64) -> String {
    format!(
        "file timestamps: the model took them from the kernel's coarse clock as read at each of the {ops} operations (it moved {moved} times between them in {:.1} ms; tick {:.1} ms, CONFIG_HZ={})",
        wall_ns as f64 / 1e6,
        tick as f64 / 1e6,
        1_000_000_000 / tick.max(1)
    )
}

fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease").map(|s| s.trim().to_string()).unwrap_or_else(|_| "?".into())
}

pub(crate) fn per_commit(tx: u64, model: &[Req], kernel: &[Req]) -> PerCommit {
    let n = tx.max(1) as f64;
    let count = |r: &[Req], op| r.iter().filter(|q| q.op == op).count() as f64 / n;
    let bytes = |r: &[Req]| r.iter().filter(|q| q.op == ReqOp::Write).map(|q| q.bytes).sum::<u64>() as f64 / n;
    PerCommit {
        transactions: tx,
        model_flushes: count(model, ReqOp::Flush),
        kernel_flushes: count(kernel, ReqOp::Flush),
        model_write_requests: count(model, ReqOp::Write),
        kernel_write_requests: count(kernel, ReqOp::Write),
        model_write_bytes: bytes(model),
        kernel_write_bytes: bytes(kernel),
    }
}

fn free_maps(model: freemap::FreeMap, kernel: freemap::FreeMap) -> FreeMaps {
    let diff: u64 = model.histogram.iter().zip(&kernel.histogram).map(|(&m, &k)| m.abs_diff(k)).sum();
    FreeMaps {
        mixed_window_error: compare_f(model.mixed_window_fraction, kernel.mixed_window_fraction),
        histogram_distance: diff as f64 / kernel.extents.max(1) as f64,
        model,
        kernel,
    }
}

fn compare_f(m: f64, k: f64) -> Option<f64> {
    (k > 0.0).then(|| (m - k) / k)
}

fn placement(sys: &SimSystem, kernel: &[(String, fiemap::FileExtents)]) -> Placement {
    let mut p = Placement {
        files: 0,
        same_start: 0,
        same_extents: 0,
        model_extents_per_file: 0.0,
        kernel_extents_per_file: 0.0,
        sample: Vec::new(),
    };
    let Some(ip) = sys.fs().inplace() else { return p };
    let (mut me, mut ke) = (0usize, 0usize);
    for (name, kx) in kernel {
        let Some(mx) = sys.fs().file_id(name).and_then(|id| ip.extents(id.index())) else { continue };
        p.files += 1;
        me += mx.len();
        ke += kx.len();
        let m: Vec<(u64, u64, u64)> = mx.iter().map(|e| (e.file_off, e.dev_off, e.len)).collect();
        if m.first().map(|e| e.1) == kx.first().map(|e| e.1) {
            p.same_start += 1;
        }
        if &m == kx {
            p.same_extents += 1;
        }
        if p.sample.len() < 12 && m != *kx {
            let blocks = |v: &[(u64, u64, u64)]| v.iter().map(|e| (e.1 / FS_BLOCK, e.2 / FS_BLOCK)).collect();
            p.sample.push((name.clone(), blocks(&m), blocks(kx)));
        }
    }
    if p.files > 0 {
        p.model_extents_per_file = me as f64 / p.files as f64;
        p.kernel_extents_per_file = ke as f64 / p.files as f64;
    }
    p
}
