//! Running a sweep on this machine: every case resolved first (bad input fails before any
//! work), the finished ones skipped, the rest run on a pool of `threads` threads (rayon), each
//! case's document stored as it completes, then the tables written from the stored documents.
//! The Ray backend (the Python package) calls the same pieces — [`pending`](crate::pending),
//! [`run_case`], [`store::store`](crate::store::store), [`write_tables`] — from its tasks.

use crate::case::{prepare, run, Prepared};
use crate::error::SweepError;
use crate::spec::Spec;
use crate::store;
use crate::table;
use rayon::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// What a finished sweep did.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Cases in the sweep.
    pub cases: usize,
    /// Cases found finished in the directory and not run again.
    pub skipped: usize,
    /// Cases run now.
    pub ran: usize,
    /// Cases whose run failed (their row has an `error`).
    pub failed: usize,
    /// Worker threads used.
    pub threads: usize,
    /// Wall-clock time of the sweep, seconds.
    pub wall_s: f64,
    /// The table written as CSV.
    pub csv: PathBuf,
    /// The table written as Parquet.
    pub parquet: PathBuf,
}

/// Progress as cases finish: (cases done, cases to do in this run).
pub type ProgressFn<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// Resolve every case (errors name the file, the case and the setting).
pub fn prepare_all(spec: &Spec) -> Result<Vec<Prepared>, SweepError> {
    if spec.cases.is_empty() {
        return Err(SweepError::File {
            file: spec.source.clone(),
            line: None,
            message: "the sweep has no cases".into(),
        });
    }
    spec.cases.iter().map(|c| prepare(spec, c)).collect()
}

/// Run case `index` of `spec` and return the document to store (an error of the run is kept
/// in the document; an error resolving the case is returned).
pub fn run_case(spec: &Spec, index: usize) -> Result<Value, SweepError> {
    let case = spec.cases.get(index).ok_or_else(|| SweepError::Case {
        case: index,
        message: format!("the sweep has {} cases", spec.cases.len()),
    })?;
    let p = prepare(spec, case)?;
    Ok(store::case_document(case, run(&p)))
}

/// Write `results.csv` and `results.parquet` from the stored documents of every case, and the
/// sweep file's text as `sweep.toml` (what `flashlab report DIR` reads the table with).
pub fn write_tables(out: &Path, spec: &Spec) -> Result<(PathBuf, PathBuf), SweepError> {
    let t = table::build(out, spec)?;
    flashlab_report::write_atomic(&out.join(crate::report::SPEC_FILE), spec.text.as_bytes())?;
    let csv = out.join("results.csv");
    let parquet = out.join("results.parquet");
    flashlab_report::write_atomic(&csv, &crate::csv_out::csv_bytes(&t)?)?;
    flashlab_report::write_atomic(&parquet, &crate::parquet_out::parquet_bytes(&t)?)?;
    Ok((csv, parquet))
}

/// Run the sweep into `out` on `threads` threads (0: one per core).
pub fn run_sweep(spec: &Spec, out: &Path, threads: usize, progress: ProgressFn) -> Result<Summary, SweepError> {
    let start = Instant::now();
    let prepared = prepare_all(spec)?;
    store::prepare_dir(out)?;
    // A bad output path fails now, not after the runs (the file is rewritten at the end).
    for name in ["results.csv", "results.parquet"] {
        let p = out.join(name);
        std::fs::OpenOptions::new().create(true).append(true).open(&p).map_err(SweepError::io(&p))?;
    }
    let todo: Vec<&Prepared> =
        prepared.iter().filter(|p| store::finished(out, spec, &spec.cases[p.index]).is_none()).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("flashlab-sweep-{i}"))
        .build()
        .map_err(|e| SweepError::Pool(e.to_string()))?;
    let threads = pool.current_num_threads();
    let done = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    progress(0, todo.len());
    pool.install(|| {
        todo.par_iter().with_max_len(1).try_for_each(|p| -> Result<(), SweepError> {
            let case = &spec.cases[p.index];
            let result = run(p);
            if result.is_err() {
                failed.fetch_add(1, Ordering::Relaxed);
            }
            store::store(out, spec, p.index, &store::case_document(case, result))?;
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, todo.len());
            Ok(())
        })
    })?;
    let (csv, parquet) = write_tables(out, spec)?;
    Ok(Summary {
        cases: spec.cases.len(),
        skipped: spec.cases.len() - todo.len(),
        ran: todo.len(),
        failed: failed.into_inner(),
        threads,
        wall_s: start.elapsed().as_secs_f64(),
        csv,
        parquet,
    })
}
