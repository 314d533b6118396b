//! The traced run on a real target: for each job, tracing on, a closed loop on one of
//! flashlab-real's I/O engines (io_uring or psync) keeping `iodepth` random I/Os in flight and
//! reading CLOCK_MONOTONIC just before each submit call and just after each reap call, tracing
//! off, the buffers drained, and the events joined with the requests.
//!
//! flashlab-real's runner measures into histograms and does not expose per-request times, so
//! the loop here is a small one over its engines; per I/O it does no allocation (times go into
//! a vector sized up front).

use crate::events::BlockEvent;
use crate::join::{join, UserIo, TOLERANCE_NS};
use crate::serve_split::{detect, read_stats, split, ServeSplit};
use crate::stats::Breakdown;
use crate::target::RealTarget;
use crate::tracefs::{find_tracefs, load_layouts, DrainStats, TraceSession};
use crate::{BreakdownError, Dir, JobKey};
use flashlab_lab::offsets::Offsets;
use flashlab_lab::rng::Rng;
use flashlab_real::buffers::DataPattern;
use flashlab_real::engine::psync::PsyncEngine;
use flashlab_real::engine::uring::UringEngine;
use flashlab_real::engine::{EngineConfig, EngineKind, IoCompletion, IoEngine, IoOp, IoRequest};
use std::os::fd::AsRawFd;
use std::path::Path;

/// The measured phase names (btt's).
pub const PHASES: [&str; 4] = ["submit→Q", "Q2D", "D2C", "C→user"];
/// The driver + device phase.
pub const DEVICE_PHASE: usize = 2;

/// CLOCK_MONOTONIC in ns (the trace clock `mono`).
pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// One request as the loop saw it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sample {
    /// Byte offset in the target.
    pub off: u64,
    /// Length, bytes.
    pub len: u32,
    /// CLOCK_MONOTONIC ns just before the submit call.
    pub submit: u64,
    /// CLOCK_MONOTONIC ns just after the reap call that returned it.
    pub done: u64,
}

/// Run `ios` random I/Os of `key` on the target; returns each request's times.
pub fn run_loop(
    t: &RealTarget,
    key: JobKey,
    ios: u64,
    engine: EngineKind,
    seed: u64,
) -> Result<Vec<Sample>, BreakdownError> {
    let cfg = EngineConfig {
        depth: key.iodepth.max(1),
        buf_size: key.bs as usize,
        pattern: DataPattern::Random,
        seed,
        fixed_buffers: true,
    };
    match engine {
        EngineKind::IoUring => run_with(&mut UringEngine::new(&cfg)?, t, key, ios, seed),
        EngineKind::Psync => run_with(&mut PsyncEngine::new(&cfg), t, key, ios, seed),
    }
}

fn run_with<E: IoEngine>(
    eng: &mut E,
    t: &RealTarget,
    key: JobKey,
    ios: u64,
    seed: u64,
) -> Result<Vec<Sample>, BreakdownError> {
    if key.bs == 0 || !key.bs.is_multiple_of(4096) || key.bs > t.span {
        return Err(BreakdownError::Bad(format!(
            "--bs {}: must be a non-zero multiple of 4 KiB and at most the target's {} bytes",
            key.bs, t.span
        )));
    }
    let fd = t.file.as_raw_fd();
    let depth = eng.depth() as usize;
    let mut rng = Rng::new(seed);
    let mut offsets = Offsets::new(true, true, t.span, key.bs, &mut rng);
    let mut slots = vec![Sample::default(); depth];
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    let mut batch: Vec<u32> = Vec::with_capacity(depth);
    let mut comps: Vec<IoCompletion> = Vec::with_capacity(depth * 2);
    let mut out: Vec<Sample> = Vec::with_capacity(ios as usize);
    let mut issued = 0u64;
    let op = match key.dir {
        Dir::Read => IoOp::Read,
        Dir::Write => IoOp::Write,
    };
    loop {
        while issued < ios {
            let Some(slot) = free.pop() else { break };
            let off = offsets.next(t.span, key.bs);
            slots[slot as usize] = Sample { off, len: key.bs as u32, submit: 0, done: 0 };
            eng.queue(IoRequest {
                op,
                fd,
                offset: off,
                len: key.bs as u32,
                slot,
                user_data: u64::from(slot),
                ioprio: 0,
            })?;
            batch.push(slot);
            issued += 1;
        }
        if !batch.is_empty() {
            let t0 = mono_ns();
            for &s in &batch {
                slots[s as usize].submit = t0;
            }
            eng.submit()?;
            batch.clear();
        }
        if eng.in_flight() == 0 {
            break;
        }
        comps.clear();
        eng.reap(1, usize::MAX, &mut comps)?;
        let t1 = mono_ns();
        for c in &comps {
            let mut s = slots[c.slot as usize];
            if c.result < 0 {
                return Err(BreakdownError::Bad(format!(
                    "{}: {} of {} bytes at offset {}: {}",
                    t.path.display(),
                    key.dir.name(),
                    s.len,
                    s.off,
                    std::io::Error::from_raw_os_error(-c.result)
                )));
            }
            s.done = t1;
            out.push(s);
            free.push(c.slot);
        }
    }
    Ok(out)
}

/// The measured breakdown of one job.
#[derive(Debug, Clone)]
pub struct RealJob {
    /// The job.
    pub key: JobKey,
    /// Requests submitted.
    pub submitted: u64,
    /// Requests joined with their Q, D and C events.
    pub joined: u64,
    /// Requests not joined, by the event that was missing.
    pub unmatched: crate::join::Unmatched,
    /// Joined requests whose every phase is ≥ −[`TOLERANCE_NS`] (the kernel's timestamps fall
    /// inside flashlab's own readings, in order).
    pub consistent: u64,
    /// Joined requests that went through `block_rq_insert`.
    pub inserted: u64,
    /// What draining the trace buffers found.
    pub drain: DrainStats,
    /// The phases' statistics over the joined requests.
    pub breakdown: Breakdown,
    /// On a flashlab serve device: D2C split into the emulator's parts.
    pub serve: Option<ServeSplit>,
}

/// Options of a traced run.
#[derive(Debug, Clone)]
pub struct RealOptions {
    /// I/Os per job.
    pub ios: u64,
    /// The I/O engine.
    pub engine: EngineKind,
    /// Seed of the random offsets.
    pub seed: u64,
    /// Tracefs roots to look in, in order.
    pub tracefs_roots: Vec<std::path::PathBuf>,
}

/// Trace `jobs` on the target, one after the other; `progress` is told each job's name when
/// it starts. Tracing is torn down whatever happens (the session's drop).
pub fn breakdown_real(
    t: &RealTarget,
    jobs: &[JobKey],
    o: &RealOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<(Vec<RealJob>, String), BreakdownError> {
    let roots: Vec<&Path> = o.tracefs_roots.iter().map(|p| p.as_path()).collect();
    let root = find_tracefs(&roots)?;
    let layouts = load_layouts(&root)?;
    // About 4 events of ~80 bytes per request, with room for other I/O on the same disk.
    let buffer_kb = o.ios.clamp(2048, 1 << 18);
    let session = TraceSession::start(&root, layouts, t.disk.kernel_dev(), buffer_kb)?;
    let mut events: Vec<BlockEvent> = Vec::new();
    let mut out = Vec::new();
    let serve = detect(&t.disk);
    for (i, &key) in jobs.iter().enumerate() {
        progress(&format!("{} {} QD{}", key.rw_name(), crate::report::size_name(key.bs), key.iodepth));
        events.clear();
        session.drain(&mut events)?; // anything left from before
        events.clear();
        let before = serve.as_ref().map(|s| read_stats(&s.stats)).transpose()?;
        session.on()?;
        let samples = run_loop(t, key, o.ios, o.engine, o.seed.wrapping_add(i as u64));
        session.off()?;
        let samples = samples?;
        let drain = session.drain(&mut events)?;
        let after = serve.as_ref().map(|s| read_stats(&s.stats)).transpose()?;
        let users: Vec<UserIo> = samples
            .iter()
            .map(|s| UserIo {
                dir: key.dir,
                submit: s.submit,
                done: s.done,
                ranges: t.sectors(s.off, u64::from(s.len)),
            })
            .collect();
        let (joined, unmatched) = join(&users, &events, t.disk.kernel_dev());
        let rows: Vec<[i64; 4]> = joined.iter().flatten().map(|j| j.phases()).collect();
        let consistent = rows.iter().filter(|r| r.iter().all(|&p| p >= -(TOLERANCE_NS as i64))).count() as u64;
        let inserted = joined.iter().flatten().filter(|j| j.inserted).count() as u64;
        out.push(RealJob {
            key,
            submitted: samples.len() as u64,
            joined: rows.len() as u64,
            unmatched,
            consistent,
            inserted,
            drain,
            serve: None,
            breakdown: Breakdown::from_rows(PHASES, &rows),
        });
        if let (Some(b), Some(a), Some(job)) = (&before, &after, out.last_mut()) {
            job.serve = Some(split(b, a, key.dir, &job.breakdown.phases[DEVICE_PHASE].dist)?);
        }
    }
    session.close()?;
    Ok((out, root.display().to_string()))
}
