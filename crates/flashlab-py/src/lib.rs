//! `flashlab._native`: the Rust side of the flashlab Python package (PyO3). Each function is
//! a thin call into the library the CLI uses — `flashlab_lab::profiles` and `flashlab_sweep`
//! (which runs cases through `flashlab_lab::sim_run` and `flashlab_life`) — and gives JSON
//! text back for the Python side (`python/flashlab/__init__.py`) to turn into dicts and
//! DataFrames. Simulations run with the GIL released. A sweep is named by its TOML text, the
//! name errors give it and the directory its relative paths are read from, so a Ray worker
//! can rebuild it from three strings.

use flashlab_sweep::{store, Spec};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::Path;

fn err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn spec(text: &str, source: &str, dir: &str) -> PyResult<Spec> {
    Spec::parse(source, text, Path::new(dir)).map_err(err)
}

fn json(v: &serde_json::Value) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| err(e.to_string()))
}

/// The version of flashlab this package was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The names of the built-in device profiles.
#[pyfunction]
fn profile_names() -> Vec<String> {
    flashlab_lab::profiles::BUILTIN.iter().map(|(n, _)| n.to_string()).collect()
}

/// A profile (built-in name or TOML file), validated, as JSON text of its TOML tables.
#[pyfunction]
fn profile_json(name: &str) -> PyResult<String> {
    flashlab_lab::profiles::load(name).map_err(err)?;
    let (_, text) = flashlab_lab::profiles::text(name).map_err(err)?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| err(e.to_string()))?;
    serde_json::to_string(&table).map_err(|e| err(e.to_string()))
}

/// The cases of a sweep: `{"columns": [...], "cases": [{setting: value}, ...]}`; every case
/// is resolved, so bad input raises here.
#[pyfunction]
fn plan(text: &str, source: &str, dir: &str) -> PyResult<String> {
    let s = spec(text, source, dir)?;
    flashlab_sweep::prepare_all(&s).map_err(err)?;
    let cases: Vec<serde_json::Value> = s.cases.iter().map(|c| c.settings_json()).collect();
    json(&serde_json::json!({"columns": s.columns, "cases": cases}))
}

/// Run case `index` (GIL released) and return its document as it is stored.
#[pyfunction]
fn run_case(py: Python<'_>, text: &str, source: &str, dir: &str, index: usize) -> PyResult<String> {
    let s = spec(text, source, dir)?;
    py.detach(|| flashlab_sweep::run_case(&s, index).and_then(|d| store::serialize(&d))).map_err(err)
}

/// The indices of the cases that have no results in `out` yet.
#[pyfunction]
fn pending(text: &str, source: &str, dir: &str, out: &str) -> PyResult<Vec<usize>> {
    let s = spec(text, source, dir)?;
    store::prepare_dir(Path::new(out)).map_err(err)?;
    Ok(flashlab_sweep::pending(Path::new(out), &s))
}

/// Store the document `run_case` returned for case `index` in `out`.
#[pyfunction]
fn store_case(text: &str, source: &str, dir: &str, out: &str, index: usize, doc: &str) -> PyResult<()> {
    let s = spec(text, source, dir)?;
    store::store_text(Path::new(out), &s, index, doc).map_err(err)
}

/// Write results.csv and results.parquet in `out` from the stored documents; their paths.
#[pyfunction]
fn write_tables(text: &str, source: &str, dir: &str, out: &str) -> PyResult<(String, String)> {
    let s = spec(text, source, dir)?;
    let (c, p) = flashlab_sweep::write_tables(Path::new(out), &s).map_err(err)?;
    Ok((c.display().to_string(), p.display().to_string()))
}

/// Run the whole sweep on this machine with `threads` threads (0: one per core), GIL
/// released; a summary as JSON.
#[pyfunction]
fn sweep_local(py: Python<'_>, text: &str, source: &str, dir: &str, out: &str, threads: usize) -> PyResult<String> {
    let s = spec(text, source, dir)?;
    let sum = py.detach(|| flashlab_sweep::run_sweep(&s, Path::new(out), threads, &|_, _| {})).map_err(err)?;
    json(&serde_json::json!({
        "cases": sum.cases, "ran": sum.ran, "skipped": sum.skipped, "failed": sum.failed,
        "threads": sum.threads, "wall_s": sum.wall_s,
        "csv": sum.csv.display().to_string(), "parquet": sum.parquet.display().to_string(),
    }))
}

/// The sweep's table from `out`: `{"columns": [...], "rows": [[...], ...]}`.
#[pyfunction]
fn table(text: &str, source: &str, dir: &str, out: &str) -> PyResult<String> {
    let s = spec(text, source, dir)?;
    json(&flashlab_sweep::table::build(Path::new(out), &s).map_err(err)?.to_json())
}

/// The headline numbers of one results document (JSON text): `[[name, value], ...]`.
#[pyfunction]
fn headline(doc: &str) -> PyResult<String> {
    let v: serde_json::Value = serde_json::from_str(doc).map_err(|e| err(e.to_string()))?;
    json(&serde_json::to_value(flashlab_sweep::headline::headline(&v)).map_err(|e| err(e.to_string()))?)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(profile_names, m)?)?;
    m.add_function(wrap_pyfunction!(profile_json, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(run_case, m)?)?;
    m.add_function(wrap_pyfunction!(pending, m)?)?;
    m.add_function(wrap_pyfunction!(store_case, m)?)?;
    m.add_function(wrap_pyfunction!(write_tables, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_local, m)?)?;
    m.add_function(wrap_pyfunction!(table, m)?)?;
    m.add_function(wrap_pyfunction!(headline, m)?)?;
    Ok(())
}
