//! The filesystem write-amplification study of `docs/filesystems.md`: 4 KiB random
//! overwrites of one preallocated, fully written file, with an fsync every N writes, at queue
//! depth 1; filesystem-level and device write amplification over the overwrite phase.

use crate::rng::Rng;
use crate::system::{SimSystem, SysError};
use flashlab_simfs::{FsConfig, FsCounters};
use flashsim::{Op, Profile};
use serde::Serialize;

/// One row of the study: one filesystem at one fsync interval.
#[derive(Debug, Clone, Serialize)]
pub struct OverwriteRow {
    /// The filesystem and its options, as `--fs` names them.
    pub(crate) filesystem: String,
    /// Overwrites between two fsyncs (0: never).
    pub(crate) fsync_every: u64,
    /// 4 KiB overwrites done.
    pub(crate) writes: u64,
    /// Device bytes the filesystem wrote per byte the application wrote.
    pub fs_write_amplification: f64,
    /// NAND units programmed per host unit written, over the same phase.
    pub device_write_amplification: f64,
    /// Application writes per second of virtual time (fsyncs included).
    pub iops: f64,
    /// What the filesystem model wrote over the overwrite phase, by purpose.
    pub(crate) fs: FsCounters,
}

/// Make `cfg` on `profile`, write a `file_bytes` file sequentially, sync, then do `writes`
/// random 4 KiB overwrites with an fsync every `fsync_every` writes (0 = never).
pub fn overwrite_waf(
    profile: &Profile,
    cfg: FsConfig,
    file_bytes: u64,
    writes: u64,
    fsync_every: u64,
    seed: u64,
) -> Result<OverwriteRow, SysError> {
    let label = cfg.label();
    let mut s = SimSystem::with_fs(profile, seed, cfg);
    let file_bytes = file_bytes / 4096 * 4096;
    let id = s.create("study.dat", file_bytes)?;
    let mut off = 0;
    while off < file_bytes {
        let len = (1u64 << 20).min(file_bytes - off);
        s.io_now(id, Op::Write, off, len)?;
        off += len;
    }
    s.sync()?;
    let (fs0, dev0, t0) = (s.fs_counters(), s.device().counters(), s.now());
    let mut rng = Rng::new(seed);
    for i in 0..writes {
        let off = rng.below(file_bytes / 4096) * 4096;
        s.io_now(id, Op::Write, off, 4096)?;
        if fsync_every > 0 && (i + 1) % fsync_every == 0 {
            s.fsync_now(id)?;
        }
    }
    let fs = s.fs_counters().since(&fs0);
    let dev = s.device().counters().since(&dev0);
    Ok(OverwriteRow {
        filesystem: label,
        fsync_every,
        writes,
        fs_write_amplification: fs.write_amplification,
        device_write_amplification: dev.write_amplification(),
        iops: writes as f64 * 1e9 / (s.now() - t0).max(1) as f64,
        fs,
    })
}
