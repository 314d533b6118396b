//! The workload on flashlab's ext4 model: a simulated system whose filesystem is the ext4
//! model over the image's own layout (`Fs::ext4_on`), the same script's operations, the
//! measured part's requests recorded.

use crate::error::Error;
use crate::ops::{FileOp, Script, WRITE_CHUNK};
use crate::options::{Mount, Options};
use flashlab_lab::system::SimSystem;
use flashlab_simfs::disk::Traced;
use flashlab_simfs::ext4_layout::Layout;
use flashlab_simfs::FS_BLOCK;
use flashlab_simfs::{Fs, FsConfig, FsKind};
use flashsim::{Op, Profile};

/// The model's filesystem configuration for a mount.
pub fn fs_config(m: Mount) -> FsConfig {
    let mut c = FsConfig::new(FsKind::Ext4);
    c.discard = m == Mount::Discard;
    c.nobarrier = m == Mount::Nobarrier;
    c
}

/// A simulated system: the profile's device, the ext4 model over `layout`.
pub fn system(o: &Options, layout: &Layout) -> Result<SimSystem, Error> {
    let bytes = layout.blocks * FS_BLOCK;
    let mut cfg = fs_config(o.mount);
    if let Some(t) = o.tick_ns {
        cfg.timestamp_granularity_ns = t.max(1);
    }
    system_on(o, bytes, Fs::ext4_on(bytes, cfg, layout.clone()))
}

/// A simulated system of the run's model profile with `fs` (a model over an image of `bytes`)
/// on it; the device must hold the whole image.
pub fn system_on(o: &Options, bytes: u64, fs: Fs) -> Result<SimSystem, Error> {
    let text = flashlab_lab::profiles::builtin(&o.model_profile).ok_or_else(|| Error::Option {
        option: "--model-profile",
        msg: format!("no built-in profile '{}'", o.model_profile),
    })?;
    let p = Profile::from_toml(&o.model_profile, text).map_err(|e| Error::Model(e.to_string()))?;
    if p.logical_bytes() < bytes {
        return Err(Error::Option {
            option: "--size",
            msg: format!(
                "{bytes} bytes: larger than the model device {} ({} bytes)",
                o.model_profile,
                p.logical_bytes()
            ),
        });
    }
    SimSystem::on_fs(&p, o.seed, fs).map_err(|e| Error::Model(e.to_string()))
}

fn err(op: &FileOp) -> impl FnOnce(flashlab_lab::system::SysError) -> Error + '_ {
    move |e| Error::Model(format!("{op:?}: {e}"))
}

/// Apply one operation at the system's clock, moving it past the operation.
pub fn apply(s: &mut SimSystem, op: &FileOp) -> Result<(), Error> {
    match op {
        FileOp::WriteFile { name, size } => {
            let id = s.create(name, *size).map_err(err(op))?;
            let mut off = 0;
            while off < *size {
                let n = WRITE_CHUNK.min(size - off);
                s.io_now(id, Op::Write, off, n).map_err(err(op))?;
                off += n;
            }
            s.fsync_now(id).map_err(err(op))?;
        }
        FileOp::Overwrite { name, off, len } => {
            s.io_now(name, Op::Write, *off, *len).map_err(err(op))?;
        }
        FileOp::Fsync { name } => {
            s.fsync_now(name).map_err(err(op))?;
        }
        FileOp::Delete { name } => s.delete(name).map_err(err(op))?,
        FileOp::Sync => s.sync().map_err(err(op))?,
        FileOp::Pause { ns } => s.idle(*ns),
    }
    Ok(())
}

/// What the model did.
#[derive(Debug)]
pub struct ModelRun {
    pub trace: Vec<Traced>,
    pub system: SimSystem,
    /// The filesystem's counters over the measured part.
    pub counters: flashlab_simfs::FsCounters,
}

/// Run `script` on a fresh model of the image whose layout is `layout`. With `clock` (one
/// value per measured operation: the coarse clock the kernel's run read as it started it,
/// [`crate::kernel_run::KernelRun::clock`]) the measured operations take their file
/// timestamps from it, so a write dirties its inode exactly when the kernel's clock had moved;
/// without, from the model's own device time.
pub fn run(o: &Options, layout: &Layout, script: &Script, clock: Option<&[u64]>) -> Result<ModelRun, Error> {
    run_on(system(o, layout)?, script, clock)
}

/// [`run`] on a given simulated system (any filesystem model).
pub fn run_on(mut s: SimSystem, script: &Script, clock: Option<&[u64]>) -> Result<ModelRun, Error> {
    for op in &script.setup {
        apply(&mut s, op)?;
    }
    s.sync().map_err(|e| Error::Model(e.to_string()))?;
    s.set_trace(true);
    let c0 = s.fs_counters();
    for (i, op) in script.measured.iter().enumerate() {
        s.set_file_clock(clock.and_then(|c| c.get(i).copied()));
        apply(&mut s, op)?;
    }
    s.set_file_clock(None);
    let trace = s.set_trace(false);
    let counters = s.fs_counters().since(&c0);
    Ok(ModelRun { trace, system: s, counters })
}
