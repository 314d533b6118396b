//! The four-corner test on a simulated system: [`run_four_corner`] runs the steps that
//! [`FourCornerConfig::steps`] lists (the settings, the row type and the order live in
//! `flashlab_workload::fourcorner`, shared with real targets).

pub use flashlab_workload::fourcorner::*;

use crate::engine::{run_jobs, JobSpec};
use crate::system::{SimSystem, SysError};
use flashlab_measure::JobResult;
use flashlab_simfs::FileId;

/// Run the four tests; `progress` gets (test name, fraction).
pub fn run_four_corner(
    sys: &mut SimSystem,
    cfg: &FourCornerConfig,
    label: &str,
    mut progress: impl FnMut(&str, f64),
) -> Result<FourCorner, SysError> {
    remove_run_files(sys)?;
    let mut run = |sys: &mut SimSystem, file: FileId, span: u64, t: &FourCornerTest| -> Result<JobResult, SysError> {
        let mut job = JobSpec::on_file(t.name, t.rw, t.bs, file, span);
        job.settings.io_limit = t.io;
        job.settings.seed = t.seed;
        job.settings.sync_writes = t.sync;
        let mut r = run_jobs(sys, &[job], |f| progress(t.name, f))?;
        Ok(r.remove(0))
    };
    let mut runs: [Vec<JobResult>; 4] = Default::default();
    // Without a read file the test file exists from the start; with one, its first (emptied)
    // write creates it.
    let mut test = match cfg.read_file {
        None => Some(sys.create(TEST_FILE, cfg.span)?),
        Some(_) => None,
    };
    let mut read = None;
    let mut all = || -> Result<(), SysError> {
        for step in cfg.steps() {
            let (file, span) = match step.file {
                FourCornerFile::Read => {
                    let size = cfg.read_file.expect("a read-file step has a read file");
                    let f = match read {
                        Some(f) => f,
                        None => *read.insert(sys.create(READ_FILE, size)?),
                    };
                    (f, size)
                }
                FourCornerFile::Test => {
                    if step.truncate {
                        test = Some(emptied_test_file(sys, cfg)?);
                    }
                    (test.expect("the test file exists"), cfg.span)
                }
            };
            let r = run(sys, file, span, &step.test)?;
            if let Some(i) = step.row {
                runs[i].push(r);
            }
        }
        Ok(())
    };
    let out = all();
    remove_run_files(sys)?;
    out?;
    let mut row = FourCorner::from_repeats(label, runs, Some(sys.device_report()));
    row.filesystem = Some(sys.fs_counters());
    Ok(row)
}

/// Delete whatever files of a four-corner run exist.
fn remove_run_files(sys: &mut SimSystem) -> Result<(), SysError> {
    for name in [TEST_FILE, RAND_WRITE_FILE, READ_FILE] {
        if sys.file_id(name).is_some() {
            sys.delete(name)?;
        }
    }
    Ok(())
}

/// The test file reopened with `O_TRUNC`: the writes go to a new file while the old one's
/// blocks are held (ext4 cannot reuse blocks a truncate frees before its transaction commits),
/// so they land on other free space. AndroBench's order replaces [`TEST_FILE`] itself (its
/// blocks are freed, held until the next commit); fio's order fills [`RAND_WRITE_FILE`] beside
/// it, freed with it when the run ends.
fn emptied_test_file(sys: &mut SimSystem, cfg: &FourCornerConfig) -> Result<FileId, SysError> {
    if cfg.read_file.is_none() {
        return sys.create(RAND_WRITE_FILE, cfg.span);
    }
    if sys.file_id(TEST_FILE).is_some() {
        sys.delete(TEST_FILE)?;
    }
    sys.create(TEST_FILE, cfg.span)
}
