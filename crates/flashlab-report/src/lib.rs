//! Charts and a self-contained HTML report from flashlab results files (issue 9).
//!
//! ```no_run
//! let text = std::fs::read_to_string("age.json").unwrap();
//! let report = flashlab_report::render_report(&[("age.json".to_string(), text)]).unwrap();
//! flashlab_report::write_outputs(&report, Some(std::path::Path::new("report.html")), None).unwrap();
//! ```
//!
//! The report reads results documents (docs/results.md: `--json FILE` of age, bench, fill,
//! wsat, run, and phone runs of those) into `flashlab_results::Document` and draws from its
//! typed bodies; the files flashlab wrote before the document existed are moved into its
//! layout first (`flashlab_results::legacy`) and read by the same types. fio-style JSON
//! (`run --output-format json`, fio's own) is fio's format, read by its own small reader
//! (`fio`). An error names the file and the field's path in it (`paths`). Several files side
//! by side are drawn as several series of the same charts. Charts are drawn with plotters' SVG
//! backend; the HTML holds them inline, with inline CSS and no script, link or web font, so it
//! needs no network to be viewed. [`sweep`] draws a sweep's table (`flashlab report DIR`).

pub mod chart;
mod error;
mod fio;
pub mod html;
mod input;
pub mod num;
mod paths;
mod sections;
pub mod sweep;

pub use error::{ChartError, InputError, ReportError};
use std::path::{Path, PathBuf};

/// A report: the HTML page and each chart as a standalone SVG document.
#[derive(Debug, Clone)]
pub struct Report {
    /// The HTML page (self-contained: the charts are inline SVG).
    pub html: String,
    /// (file stem, SVG document): `four-corners`, `age-latency`, `age-device`, `fill-latency`,
    /// `fill-throughput`, `wsat`, `run-clat`, `run-bandwidth` (those the inputs have data for).
    pub charts: Vec<(String, String)>,
}

/// One parsed input.
#[derive(Debug, Clone)]
pub(crate) struct Input {
    pub file: String,
    /// Its name in legends: the file name without directory and `.json`, made unique.
    pub series: String,
    /// What the file holds, in flashlab's types (or fio's).
    pub source: input::Source,
}

/// Render a report from results files, given as (file name, file text). The file name is used
/// in error messages and, without its directory and `.json`, as the series name in legends.
///
/// Errors name the file: malformed JSON (with line and column), a JSON file that is not the
/// results of a command the report draws (`flashlab sim waf --json`, anything else), or a
/// results file with a missing or mistyped field (named as `steps[2].seq_read_mbs`).
pub fn render_report(inputs: &[(String, String)]) -> Result<Report, ReportError> {
    render(inputs.iter().map(|(file, text)| (file, input::parse(text))))
}

/// [`render_report`] for results already in memory as JSON values (e.g. a command's own
/// results for `--report FILE`), with the name to show for each.
pub fn render_report_values(inputs: &[(String, serde_json::Value)]) -> Result<Report, ReportError> {
    render(inputs.iter().map(|(file, v)| (file, input::read(v))))
}

/// The report of inputs read (file name, what it holds or what is wrong with it).
fn render<'a>(
    inputs: impl ExactSizeIterator<Item = (&'a String, Result<input::Source, InputError>)>,
) -> Result<Report, ReportError> {
    if inputs.len() == 0 {
        return Err(ReportError::NoInputs);
    }
    let mut parsed = Vec::new();
    for (file, source) in inputs {
        let source = source.map_err(|source| ReportError::Input { file: file.clone(), source })?;
        parsed.push((file.clone(), source));
    }
    let names = series_names(&parsed.iter().map(|p| p.0.as_str()).collect::<Vec<_>>());
    let inputs: Vec<Input> =
        parsed.into_iter().zip(names).map(|((file, source), series)| Input { file, series, source }).collect();
    let sections = sections::sections(&inputs)?;
    let charts = sections.iter().map(|s| (s.stem.clone(), s.svg.clone())).collect();
    let html = html::page(&inputs, sections);
    Ok(Report { html, charts })
}

/// Write the HTML page to `html_path` and each chart to `svg_dir/STEM.svg` (the directory is
/// created if missing). Each file is written completely or not at all (a temporary file, then
/// a rename). Returns the paths written.
pub fn write_outputs(
    report: &Report,
    html_path: Option<&Path>,
    svg_dir: Option<&Path>,
) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = Vec::new();
    if let Some(p) = html_path {
        write_atomic(p, report.html.as_bytes())?;
        written.push(p.to_path_buf());
    }
    if let Some(dir) = svg_dir {
        std::fs::create_dir_all(dir).map_err(|source| ReportError::Io { path: dir.to_path_buf(), source })?;
        for (stem, svg) in &report.charts {
            let p = dir.join(format!("{stem}.svg"));
            write_atomic(&p, svg.as_bytes())?;
            written.push(p);
        }
    }
    Ok(written)
}

/// The temporary file [`write_atomic`] writes beside `path` (`DIR/.NAME.flashlab-tmp`), so a
/// caller can register it for removal on a signal or check beforehand that it can be made;
/// `None` when `path` names no file (`..`, `/`).
pub fn temp_path(path: &Path) -> Option<PathBuf> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Some(dir.join(format!(".{}.flashlab-tmp", path.file_name()?.to_string_lossy())))
}

/// Write a file completely or not at all: into a temporary file beside it ([`temp_path`]),
/// synced, then renamed over `path`. Every file flashlab writes goes through here (the
/// command line adds its signal cleanup around it; sweeps store their cases with it).
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), ReportError> {
    use std::io::Write;
    let tmp = temp_path(path).ok_or_else(|| ReportError::NotAFile { path: path.to_path_buf() })?;
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        ReportError::Io { path: path.to_path_buf(), source }
    })
}

/// Legend names: file names without directory and `.json`; the whole given name where two
/// would be the same, and a number where even those are.
fn series_names(files: &[&str]) -> Vec<String> {
    let short = |f: &str| {
        let base = Path::new(f).file_name().map(|b| b.to_string_lossy().to_string()).unwrap_or_else(|| f.to_string());
        base.strip_suffix(".json").map(str::to_string).unwrap_or(base)
    };
    let shorts: Vec<String> = files.iter().map(|f| short(f)).collect();
    let mut out: Vec<String> = shorts
        .iter()
        .zip(files)
        .map(|(s, f)| {
            if shorts.iter().filter(|o| *o == s).count() > 1 {
                f.strip_suffix(".json").unwrap_or(f).to_string()
            } else {
                s.clone()
            }
        })
        .collect();
    for i in 0..out.len() {
        let n = out[..i].iter().filter(|o| **o == out[i]).count();
        if n > 0 {
            out[i] = format!("{} #{}", out[i], n + 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_names_are_short_and_unique() {
        assert_eq!(series_names(&["a/age.json", "b/fill.json"]), vec!["age", "fill"]);
        assert_eq!(series_names(&["a/age.json", "b/age.json"]), vec!["a/age", "b/age"]);
        assert_eq!(series_names(&["age.json", "age.json"]), vec!["age", "age #2"]);
    }

    #[test]
    fn numbers_and_wrapping() {
        assert_eq!(chart::fmt_num(1000.0), "1000");
        assert_eq!(chart::fmt_num(45.312), "45.3");
        assert_eq!(chart::fmt_num(1.0), "1");
        assert_eq!(chart::fmt_num(0.05), "0.05");
        assert_eq!(chart::fmt_num(2e6), "2M");
        let w = chart::wrap("after fstrim + idle", 70.0, 12.0);
        assert!(w.len() >= 2, "{w:?}");
        assert_eq!(chart::wrap("new", 70.0, 12.0), vec!["new"]);
    }
}
