//! The SQLite workloads: real SQLite (rusqlite, through flashlab-sqlite's recording VFS) runs
//! its transactions on the kernel's ext4 in the mounted image while the loop device is traced;
//! the operations it recorded are then replayed on the ext4 model over the same layout
//! (flashlab-sqlite's page-cache replay), its requests recorded over the same interval.

use crate::error::Error;
use crate::kernel_run::{session_for, stop_and_drain_all};
use crate::model_run::system;
use crate::mounted::Mounted;
use crate::options::Options;
use flashlab_breakdown::events::BlockEvent;
use flashlab_lab::system::SimSystem;
use flashlab_simfs::disk::Traced;
use flashlab_simfs::ext4_layout::Layout;
use flashlab_sqlite::replay::replay_with_clock;
use flashlab_sqlite::vfs_recorder::{Event, Mark, RecordingVfs};
use flashlab_sqlite::workload::{run_config, Phase};
use flashlab_sqlite::{JournalMode, Shape, SyncMode, Workload};

/// The SQLite workload of a run: one insert of 100 bytes per transaction, synchronous=FULL.
pub fn workload(o: &Options, mode: JournalMode) -> Result<Workload, Error> {
    Ok(Workload::new(vec![mode], vec![SyncMode::Full], o.transactions, 1, Shape::Insert, 100, o.seed)?)
}

/// What SQLite did on the kernel's ext4.
pub struct KernelSqlite {
    /// The traced block events of the measured interval.
    pub events: Vec<BlockEvent>,
    /// The file operations SQLite made.
    pub log: Vec<Event>,
    /// The kernel's coarse clock at each of them (ns), the one file timestamps come from.
    pub clocks: Vec<u64>,
    /// Wall time of the measured interval.
    pub wall_ns: u64,
    /// F2FS's own events over the same interval (with `f2fs`).
    pub f2fs: Option<crate::f2fs_events::F2fsEvents>,
}

/// SQLite on the kernel's ext4, its block requests traced.
///
/// SQLite runs on this thread, kept on one CPU: ext4 takes a small file's blocks from the
/// locality-group preallocation of the CPU that allocates them (at writeback, in the fsync),
/// so a thread the scheduler moves between CPUs — as it does on a loaded machine — gets a
/// growing WAL or journal file's blocks interleaved from two windows. The file then has more
/// extents than its inode holds, and every later allocation logs its extent leaf block too:
/// a fresh-clone CI run measured sqlite-wal's journal 16 % over the model that way, one
/// block more in nearly every commit. The model has one window, as one CPU has.
pub fn run_kernel(o: &Options, img: &Mounted, mode: JournalMode, f2fs: bool) -> Result<KernelSqlite, Error> {
    let _pin = crate::kernel_run::Pinned::to_current_cpu();
    let wl = workload(o, mode)?;
    let vfs = RecordingVfs::register()?;
    let s = session_for(img, f2fs)?;
    let mut events = None;
    let run = run_config(&img.mnt, &vfs, &wl, mode, SyncMode::Full, &mut |phase| {
        match phase {
            Phase::Start => s.on().map_err(|e| flashlab_sqlite::Error::Target {
                path: img.mnt.clone(),
                msg: format!("start tracing: {e}"),
            })?,
            Phase::End => events = Some(stop_and_drain_all(&s, f2fs)),
        }
        Ok(())
    });
    let _ = s.off();
    s.close()?;
    let run = run?;
    let (events, f2fs) = events.ok_or_else(|| Error::Model("the SQLite run never reached its end mark".into()))??;
    let clocks = vfs.recorder().taken_clocks();
    Ok(KernelSqlite { events, log: run.events, clocks, wall_ns: run.measured_wall_ns, f2fs })
}

/// The recorded operations replayed on the model over `layout`: its requests between the
/// measure marks, the virtual time between them, and the system afterwards. With `clocks`
/// (the kernel's coarse clock at each event) the model's file timestamps come from them.
pub fn run_model(
    o: &Options,
    layout: &Layout,
    log: &[Event],
    clocks: Option<&[u64]>,
) -> Result<(Vec<Traced>, u64, SimSystem), Error> {
    let (trace, dt, sys, _) = run_model_counted(system(o, layout)?, log, clocks)?;
    Ok((trace, dt, sys))
}

/// [`run_model`] on a given simulated system (any filesystem model), with the filesystem's
/// counters over the measured interval.
pub fn run_model_counted(
    mut sim: SimSystem,
    log: &[Event],
    clocks: Option<&[u64]>,
) -> Result<(Vec<Traced>, u64, SimSystem, flashlab_simfs::FsCounters), Error> {
    let mut c0 = None;
    let mut c1 = None;
    let mut trace = Vec::new();
    let (mut t0, mut t1) = (0, 0);
    replay_with_clock(log, clocks, &mut sim, &mut |m, sim| match m {
        Mark::MeasureStart => {
            t0 = sim.now();
            sim.set_trace(true);
            c0 = Some(sim.fs_counters());
        }
        Mark::MeasureEnd => {
            t1 = sim.now();
            trace = sim.set_trace(false);
            c1 = Some(sim.fs_counters());
        }
        _ => {}
    })?;
    let counters = match (c0, c1) {
        (Some(a), Some(b)) => b.since(&a),
        _ => flashlab_simfs::FsCounters::default(),
    };
    Ok((trace, t1.saturating_sub(t0), sim, counters))
}
