//! `flashlab sweep SWEEP.toml --out DIR`: the command line of flashlab-sweep — a progress bar
//! with ETA over the cases and a summary; with `--ray ADDRESS` the sweep runs through the
//! Python package's Ray backend (`python3 -m flashlab.ray_sweep`), which calls the same library.

use crate::cli::SweepArgs;
use crate::error::Error;
use flashlab_sweep::{run_sweep, Spec};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::process::Command;

/// `flashlab sweep`: every case of a sweep file, locally or on Ray.
pub fn sweep(a: &SweepArgs) -> Result<(), Error> {
    let spec = Spec::load(&a.spec)?;
    if let Some(address) = &a.ray {
        if a.output.json.is_some() {
            return Err(Error::flag(
                "--json",
                "a sweep on Ray writes its summary from the Python driver; results.csv is in --out",
            ));
        }
        return ray(a, &spec, address);
    }
    // Resolve every case before the bar appears: bad input fails at once.
    flashlab_sweep::prepare_all(&spec)?;
    let quiet = crate::output_args::text_mode() == crate::output_args::TextMode::Silent;
    let bar = if std::io::stderr().is_terminal() && !quiet {
        let b = ProgressBar::new(0);
        b.set_style(
            ProgressStyle::with_template("sweep [{bar:30}] {pos}/{len} cases, {elapsed} elapsed, eta {eta}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let progress = |done: usize, n: usize| {
        bar.set_length(n as u64);
        bar.set_position(done as u64);
    };
    let s = run_sweep(&spec, &a.out, a.threads.unwrap_or(0), &progress)?;
    bar.finish_and_clear();
    crate::outln!(
        "flashlab sweep {}: {} cases ({} run on {} threads, {} already finished{}) in {:.1} s",
        a.spec.display(),
        s.cases,
        s.ran,
        s.threads,
        s.skipped,
        if s.failed > 0 { format!(", {} failed: see the error column", s.failed) } else { String::new() },
        s.wall_s
    );
    crate::outln!(
        "results: {} and {}; each case's results in {}/cases/",
        s.csv.display(),
        s.parquet.display(),
        a.out.display()
    );
    let doc = flashlab_results::Document::new(flashlab_results::Body::Sweep(flashlab_results::body::SweepBody {
        cases: s.cases as u64,
        ran: s.ran as u64,
        skipped: s.skipped as u64,
        failed: s.failed as u64,
        threads: s.threads as u64,
        wall_s: s.wall_s,
        csv: s.csv.display().to_string(),
        parquet: s.parquet.display().to_string(),
    }))
    .param("spec", a.spec.display().to_string())
    .param("out", a.out.display().to_string());
    a.output.write(&doc, "sweep")
}

/// Hand the sweep to the Python package's Ray driver; it prints its own summary.
fn ray(a: &SweepArgs, spec: &Spec, address: &str) -> Result<(), Error> {
    if a.threads.is_some() {
        return Err(Error::not_applicable(
            "--threads",
            "applies to a local sweep; on Ray the cluster's workers run the cases",
        ));
    }
    let python = a
        .python
        .clone()
        .or_else(|| std::env::var_os("FLASHLAB_PYTHON").map(Into::into))
        .unwrap_or_else(|| "python3".into());
    let status = Command::new(&python)
        .args(["-m", "flashlab.ray_sweep"])
        .arg(&a.spec)
        .arg("--out")
        .arg(&a.out)
        .args(["--address", address])
        .status()
        .map_err(|e| {
            Error::flag(
                "--ray",
                format!("cannot start {}: {e} (install the Python package: docs/sweep.md)", python.display()),
            )
        })?;
    if !status.success() {
        return Err(Error::flag(
            "--ray",
            format!(
                "{} -m flashlab.ray_sweep {} failed ({status}); is the flashlab Python package with ray installed there? (docs/sweep.md)",
                python.display(),
                spec.source
            ),
        ));
    }
    Ok(())
}
