//! `flashlab run` on real targets: each job of a stonewall group runs in its own thread with
//! its own I/O engine, on files flashlab creates in a directory (`jobname.N.K`, laid out
//! first when the job reads, removed afterwards), on a file the job names (written only if
//! flashlab created it), or on a raw block device (only with `--destroy-data`; a job over
//! several files takes consecutive regions of it).

use crate::cli::RunArgs;
use crate::error::Error;
use crate::target::real_options;
use flashlab_jobs::files::split_size;
use flashlab_jobs::{Job, JobFile, Rw};
use flashlab_measure::JobResult;
use flashlab_real::blockdev::open_block_device;
use flashlab_real::cleanup::{install_signal_handlers, Cleanup};
use flashlab_real::control::{FinishGuard, GroupControl, JobControl};
use flashlab_real::dir_target::free_bytes;
use flashlab_real::engine::{choose_engine, EngineKind};
use flashlab_real::runner::{open_file, run_job_on_path, RealFile, RealJob};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where the jobs' I/O goes.
pub enum Place {
    /// Files flashlab creates in this directory.
    Dir(PathBuf),
    /// This block device.
    Block(PathBuf),
    /// Each job's own `filename=` / `directory=`.
    JobOwn,
}

/// Run every group; returns (result, rw, bs, iodepth) per job in order.
pub fn run_real(a: &RunArgs, jf: &JobFile, place: &Place) -> Result<Vec<(JobResult, String, u64, u32)>, Error> {
    let (opts, _) = real_options(&a.real)?;
    install_signal_handlers().map_err(|source| Error::Setup { what: "signal handlers", source })?;
    let cleanup = Cleanup::global();
    let here = |job: &Job| {
        let (file, line, job) = (a.source(), job.line, job.name.clone());
        move |e: Error| Error::Job { file, line, job, source: Box::new(e) }
    };
    let mut out = Vec::new();
    let held = std::cell::RefCell::new(Vec::new());
    let result = (|| {
        // fio counts startdelay from its own start: the first group's.
        let mut origin: Option<Instant> = None;
        // exitall with exit_what=all ended the run: the later groups never start.
        let mut stopped = false;
        for (g, group) in jf.run_groups().iter().enumerate() {
            if stopped {
                for &ji in group {
                    let job = &jf.jobs[ji];
                    for _ in 0..job.numjobs.max(1) {
                        let mut r = JobResult::new(job.name.clone(), g as u32);
                        r.iodepth = Some(job.iodepth.max(1));
                        out.push((r, job.rw.fio_name().to_string(), job.max_bs(), job.iodepth.max(1)));
                    }
                }
                continue;
            }
            let mut prepared: Vec<(PathBuf, RealJob)> = Vec::new();
            // The job-file index of each prepared job (a job's clones follow each other).
            let mut of_job = Vec::new();
            for &ji in group {
                let job = &jf.jobs[ji];
                for n in 0..job.numjobs.max(1) {
                    let mut rj = prepare(a, job, ji, n, place, &held, cleanup, opts.direct).map_err(here(job))?;
                    rj.1.engine = job_engine(a, job, opts.engine).map_err(here(job))?;
                    rj.1.pattern = opts.pattern;
                    rj.1.direct = if a.real.io.buffered { false } else { job.direct };
                    prepared.push(rj);
                    of_job.push(ji);
                }
            }
            let group_start = Instant::now();
            let run_start = *origin.get_or_insert(group_start);
            let flows: Vec<Option<(u32, u32)>> =
                prepared.iter().map(|(_, rj)| rj.settings.flow().map(|(id, w, _)| (id, w))).collect();
            let control = GroupControl::with_flows(group_start, &flows);
            for (i, (_, rj)) in prepared.iter_mut().enumerate() {
                let job = &jf.jobs[of_job[i]];
                // fio's genesis is the run's start: the earlier groups' time counts towards it.
                let elapsed = group_start.duration_since(run_start).as_nanos() as u64;
                rj.settings.start_delay_ns = rj.settings.start_delay_ns.saturating_sub(elapsed);
                rj.settings.exitall = jf.exitall().then_some(job.exit_what);
                let waits_for = match &job.wait_for {
                    // Every clone of the job it waits for (the parser checked that it is one
                    // job, earlier in the file); one in an earlier group has finished already.
                    Some(w) => {
                        (0..of_job.len()).filter(|&k| jf.jobs[of_job[k]].name == *w && of_job[k] < of_job[i]).collect()
                    }
                    None => Vec::new(),
                };
                rj.control = Some(JobControl { group: control.clone(), index: i, waits_for });
            }
            let results: Vec<Result<JobResult, Error>> = std::thread::scope(|s| {
                let handles: Vec<_> = prepared
                    .iter()
                    .map(|(path, rj)| {
                        s.spawn(move || {
                            // However the job ends, the jobs waiting for it go on.
                            let _end = rj.control.clone().map(|c| FinishGuard::new(c, rj.settings.exitall));
                            run_job_on_path(path, rj, &mut |_| {}).map_err(Error::from)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err(Error::Usage("a job thread panicked".into()))))
                    .collect()
            });
            for (((_, rj), r), &ji) in prepared.iter().zip(results).zip(&of_job) {
                let mut r = r?;
                if jf.jobs[ji].fill_device && r.error == libc::ENOSPC {
                    // fio: a fill_device job's ENOSPC is its expected end, not an error.
                    r.error = 0;
                }
                r.groupid = g as u32;
                out.push((
                    r,
                    rj.settings.rw.fio_name().to_string(),
                    rj.settings.bs_write.max(rj.settings.bs_read),
                    rj.settings.iodepth,
                ));
            }
            stopped = control.stop_run();
        }
        Ok(())
    })();
    drop(held);
    // flashlab's own job files go, whatever happened.
    for (p, e) in cleanup.remove_all() {
        eprintln!("warning: could not remove {}: {e}", p.display());
    }
    result.map(|_| out)
}

/// The engine a job runs on: `--ioengine` when given; else the job file's own `ioengine=` when
/// flashlab has it (`psync`, `sync` and `pvsync` run as psync; `io_uring`, an error where the
/// kernel refuses a ring), as fio runs the engine its job file names; else `default` (io_uring
/// where the kernel allows it), with a note naming the engine flashlab does not have.
fn job_engine(a: &RunArgs, job: &Job, default: EngineKind) -> Result<EngineKind, Error> {
    let Some(name) = job.ioengine.as_deref().filter(|_| a.real.io.ioengine.is_none()) else {
        return Ok(default);
    };
    if EngineKind::from_name(name).is_none() {
        eprintln!(
            "note: ioengine={name} is not implemented on real targets (flashlab has io_uring and psync); using {}",
            default.name()
        );
        return Ok(default);
    }
    Ok(choose_engine(Some(name))?.0)
}

/// One clone of a job, ready to run: its first file's path and the job over all its files.
/// fio's rules for the files ([`Job::file_sizes`]): `filesize` each, or `size` split over
/// them; in a directory each is a file of its own (`jobname.N.K`, laid out first when the job
/// reads); on a block device the files are consecutive regions of it.
#[allow(clippy::too_many_arguments)]
fn prepare(
    a: &RunArgs,
    job: &Job,
    ji: usize,
    n: u32,
    place: &Place,
    held: &std::cell::RefCell<Vec<(PathBuf, u64, std::fs::File)>>,
    cleanup: &Cleanup,
    direct: bool,
) -> Result<(PathBuf, RealJob), Error> {
    let multi = job.nr_files() > 1;
    let names = match place {
        // The target directory decides the names, as for one file: fio's default names.
        Place::Dir(_) if !job.filenames.is_empty() => {
            (0..job.nr_files()).map(|k| format!("{}.{n}.{k}", job_file_stem(&job.name))).collect()
        }
        _ => job.file_names(n),
    };
    let mut located = Vec::with_capacity(names.len());
    for name in &names {
        located.push(locate(a, job, name, place, held)?);
    }
    let capacity = located[0].1;
    let min_bs = job.rw.directions().into_iter().map(|d| job.min_block_size(d)).min().unwrap_or(job.bs);
    let sizes: Vec<u64> = if multi || job.filesize.is_some() {
        job.file_sizes(capacity).unwrap_or_else(|| split_size(capacity, job.nr_files(), min_bs))
    } else {
        vec![job.size.map(|s| s.resolve(capacity)).unwrap_or(capacity)]
    };
    let bs = job.max_bs();
    let mut files = Vec::with_capacity(names.len());
    let mut base = 0u64;
    for (k, ((path, capacity, ours), &size)) in located.into_iter().zip(&sizes).enumerate() {
        // Regions of one block device follow each other.
        let shares_device = k > 0 && files.iter().any(|f: &RealFile| f.path == path);
        let start = if shares_device { base } else { 0 };
        // fio's offset_increment: clone n's region starts n increments further on and is as
        // long as clone 0's; the file (or the part of the device) grows to hold it.
        let first = job.offset.resolve(size);
        let shift = job.offset_increment.resolve(size).saturating_mul(u64::from(n));
        // Without size= the region runs to the end of the file or device (fio: its size
        // less the offset), so it shrinks rather than grows. With it, a file flashlab lays
        // out holds [offset, offset + size) (fio's setup_files extends a regular file to
        // file_offset + io_size); an existing file or a device keeps [offset, size).
        let size = if job.size.is_none() && job.filesize.is_none() {
            size
        } else if ours {
            size.saturating_add(first).saturating_add(shift)
        } else {
            size.saturating_add(shift)
        };
        if !ours && start + size > capacity {
            return Err(Error::Usage(if shares_device {
                format!("{} files of {} bytes do not fit in {} ({capacity} bytes)", names.len(), size, path.display())
            } else {
                format!("size {size} is larger than {} ({capacity} bytes)", path.display())
            }));
        }
        let offset = first + shift;
        if size < offset + bs {
            return Err(Error::Usage(format!("size {size} at offset {offset} leaves no room for a {bs}-byte block")));
        }
        if ours {
            cleanup.register(&path);
            // fio's fill_device: a written file grows until the filesystem is full (no
            // preallocation, which would take the space the writes are to find the end of).
            let size = if job.fill_device && !job.rw.has_reads() { 0 } else { size };
            lay_out(&path, size, job.rw.has_reads(), direct)?;
        }
        base = start + size;
        files.push(RealFile { name: names[k].clone(), path, offset: start + offset, span: (size - offset) / bs * bs });
    }
    let seed = job.randseed.unwrap_or(a.seed.wrapping_add(ji as u64 * 1000 + u64::from(n)));
    let spans: Vec<u64> = files.iter().map(|f| f.span).collect();
    let mut rj = RealJob::from_fio(job, files[0].offset, spans.iter().sum(), seed);
    // fio's fill_device: ENOSPC ends the job (run_real clears the error, as fio does).
    rj.stop_on_enospc |= job.fill_device;
    if multi || job.filesize.is_some() {
        rj.settings.io_limit = Some(job.pass_bytes(capacity, &spans));
    }
    let first = files[0].path.clone();
    if multi {
        rj.files = files;
    }
    Ok((first, rj))
}

/// Where the file `name` of a job is, the capacity `size=N%` refers to, and whether flashlab
/// creates it.
fn locate(
    a: &RunArgs,
    job: &Job,
    name: &str,
    place: &Place,
    held: &std::cell::RefCell<Vec<(PathBuf, u64, std::fs::File)>>,
) -> Result<(PathBuf, u64, bool), Error> {
    let in_dir = |dir: &Path| -> Result<(PathBuf, u64, bool), Error> {
        // fio names a job's file `NAME.JOBNUM.FILENUM` in the directory; a '/' in the name
        // (`[/abs/path]`, `[../x]`) would put it elsewhere, so it becomes '_': the file is
        // always directly in the target directory.
        let path = dir.join(job_file_stem(name));
        if path.symlink_metadata().is_ok() {
            return Err(Error::Refused {
                path,
                problem: " exists and flashlab did not create it; remove it or choose another directory".into(),
            });
        }
        Ok((path, free_bytes(dir)?, true))
    };
    let block = |dev: &Path| -> Result<(PathBuf, u64, bool), Error> {
        // A device this run already holds (another job, a later group): it is ours to use.
        if let Some((_, size, _)) = held.borrow().iter().find(|(p, _, _)| p == dev) {
            return Ok((dev.to_path_buf(), *size, false));
        }
        let (file, _, size) = open_block_device(dev, a.real.destroy_data, false)?;
        // Hold the exclusive open for the rest of the run: nothing can mount the device
        // between the check and the job.
        held.borrow_mut().push((dev.to_path_buf(), size, file));
        Ok((dev.to_path_buf(), size, false))
    };
    match place {
        Place::Dir(d) => in_dir(d),
        Place::Block(d) => block(d),
        Place::JobOwn => {
            if let Some(d) = &job.directory {
                return in_dir(Path::new(d));
            }
            if job.filename.is_none() {
                return Err(Error::Usage("names neither filename nor directory".into()));
            }
            let f = PathBuf::from(name);
            let existing = f.symlink_metadata().is_ok();
            match std::fs::metadata(&f) {
                Ok(m) if m.file_type().is_block_device() => block(&f),
                Ok(m) if m.is_file() => {
                    if job.rw.has_writes() || job.rw.has_trims() {
                        return Err(Error::Refused {
                            path: f,
                            problem: " exists and flashlab did not create it: refusing to write to it".into(),
                        });
                    }
                    Ok((f, m.len(), false))
                }
                Ok(_) => Err(Error::Refused { path: f, problem: ": not a regular file nor a block device".into() }),
                Err(_) if existing => Err(Error::Refused {
                    path: f,
                    problem: " is a dangling symlink: refusing to create a file through it".into(),
                }),
                Err(_) => {
                    let dir = f.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                    Ok((f.clone(), free_bytes(dir)?, true))
                }
            }
        }
    }
}

pub use flashlab_lab::jobfile_run::job_file_stem;

/// Create a job file of `size` bytes: written sequentially when the job reads it (as fio lays
/// out files), else sized and allocated (`fallocate`, fio's default `fallocate=native`), so the
/// job's writes land in allocated blocks as fio's do, not in holes the filesystem must
/// allocate during the measurement. A filesystem without fallocate keeps the sized file.
fn lay_out(path: &Path, size: u64, write_it: bool, direct: bool) -> Result<(), Error> {
    use std::os::fd::AsRawFd;
    let f = open_file(path, false, true)?;
    f.set_len(size).map_err(Error::io(path))?;
    if !write_it && size > 0 {
        // SAFETY: fallocate on an fd we own; a failure (EOPNOTSUPP on filesystems without it)
        // leaves the file as set_len made it, which fio also accepts.
        unsafe { libc::fallocate(f.as_raw_fd(), 0, 0, size as libc::off_t) };
    }
    drop(f);
    if write_it {
        let mut job = RealJob::new("layout", Rw::Write, 1 << 20, size / 4096 * 4096);
        job.direct = direct;
        run_job_on_path(path, &job, &mut |_| {})?;
    }
    Ok(())
}
