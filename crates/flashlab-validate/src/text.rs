//! The comparison's tables for the terminal, drawn by flashlab-results' renderer within 80
//! columns: per request class, the model's and the kernel's request and byte counts with the
//! error, then flushes, FUA and where the writes landed.

use crate::compare::ClassRow;
use flashlab_results::table::{Cell, Format, Table};

fn error(e: Option<f64>) -> Cell {
    e.map_or(Cell::Missing, |e| Cell::Text(format!("{:+.1}%", e * 100.0)))
}

/// Requests and bytes per class, model beside kernel, and the model's relative error.
pub fn counts(classes: &[ClassRow]) -> Table {
    let mut t = Table::new(
        "requests and bytes",
        &[
            ("class", ""),
            ("requests", "model"),
            ("requests", "kernel"),
            ("requests", "error"),
            ("MiB", "model"),
            ("MiB", "kernel"),
            ("bytes", "error"),
        ],
    )
    .format(1, Format::Fixed(0))
    .format(2, Format::Fixed(0));
    let mib = |b: u64| Cell::Num(b as f64 / (1u64 << 20) as f64);
    for r in classes {
        t.row(vec![
            r.class.into(),
            r.model_requests.into(),
            r.kernel_requests.into(),
            error(r.requests_error),
            mib(r.model_bytes),
            mib(r.kernel_bytes),
            error(r.bytes_error),
        ]);
    }
    t
}

/// Flushes, FUA writes, 4 MiB windows touched and the mean position on the image (0 is its
/// start, 1 its end) per class, model beside kernel.
pub fn ordering(classes: &[ClassRow]) -> Table {
    let mut t = Table::new(
        "flushes and placement",
        &[
            ("class", ""),
            ("flushes", "model"),
            ("flushes", "kernel"),
            ("FUA", "model"),
            ("FUA", "kernel"),
            ("4MiB win", "model/kern"),
            ("mean pos", "model/kern"),
        ],
    );
    let pos = |p: Option<f64>| p.map_or_else(|| "-".into(), |p| format!("{p:.2}"));
    for r in classes {
        t.row(vec![
            r.class.into(),
            r.model_flushes.into(),
            r.kernel_flushes.into(),
            r.model_fua.into(),
            r.kernel_fua.into(),
            format!("{}/{}", r.model_windows, r.kernel_windows).into(),
            format!("{}/{}", pos(r.model_mean_position), pos(r.kernel_mean_position)).into(),
        ]);
    }
    t
}
