//! Per class, what each side sent — requests, bytes, flushes, FUA writes, the 4 MiB windows
//! the writes touched and their mean position — and the model's relative error against the
//! kernel.

use crate::classify::{Class, Classifier};
use crate::requests::Req;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The erase-block-sized unit "where the writes land" is counted in.
pub const WINDOW: u64 = 4 << 20;

/// One side's totals for one class.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Tally {
    pub requests: u64,
    pub bytes: u64,
    /// Requests with PREFLUSH (a flush request counts itself).
    pub flushes: u64,
    pub fua: u64,
    /// Distinct 4 MiB windows written.
    pub windows: u64,
    /// Mean byte offset of the bytes written, as a fraction of the device.
    pub mean_position: Option<f64>,
}

/// Tally `reqs` by ext4 class on a device of `capacity` bytes.
pub fn tally(reqs: &[Req], c: &Classifier, capacity: u64) -> BTreeMap<Class, Tally> {
    let classes: Vec<Class> = reqs.iter().map(|r| c.class(r)).collect();
    tally_by(reqs, &classes, capacity)
}

/// Tally `reqs` by their classes (`classes[i]` is the class of `reqs[i]`) on a device of
/// `capacity` bytes.
pub fn tally_by<C: Ord + Copy>(reqs: &[Req], classes: &[C], capacity: u64) -> BTreeMap<C, Tally> {
    let mut out: BTreeMap<C, Tally> = BTreeMap::new();
    let mut windows: BTreeMap<C, BTreeSet<u64>> = BTreeMap::new();
    let mut pos: BTreeMap<C, f64> = BTreeMap::new();
    for (r, &class) in reqs.iter().zip(classes) {
        let t = out.entry(class).or_default();
        t.requests += 1;
        t.bytes += r.bytes;
        t.flushes += u64::from(r.preflush);
        t.fua += u64::from(r.fua);
        if r.bytes > 0 {
            let w = windows.entry(class).or_default();
            let mut o = r.offset / WINDOW;
            while o * WINDOW < r.offset + r.bytes {
                w.insert(o);
                o += 1;
            }
            *pos.entry(class).or_default() += (r.offset as f64 + r.bytes as f64 / 2.0) * r.bytes as f64;
        }
    }
    for (class, t) in out.iter_mut() {
        t.windows = windows.get(class).map_or(0, |w| w.len() as u64);
        if t.bytes > 0 && capacity > 0 {
            t.mean_position = pos.get(class).map(|p| p / t.bytes as f64 / capacity as f64);
        }
    }
    out
}

/// (model - kernel) / kernel; `None` when the kernel's is 0 (then any model value is shown
/// as is).
pub fn rel_err(model: u64, kernel: u64) -> Option<f64> {
    (kernel > 0).then(|| (model as f64 - kernel as f64) / kernel as f64)
}

/// One class, model beside kernel. The field names are the JSON's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassRow {
    pub class: &'static str,
    pub model_requests: u64,
    pub kernel_requests: u64,
    pub model_bytes: u64,
    pub kernel_bytes: u64,
    pub model_flushes: u64,
    pub kernel_flushes: u64,
    pub model_fua: u64,
    pub kernel_fua: u64,
    pub model_windows: u64,
    pub kernel_windows: u64,
    pub model_mean_position: Option<f64>,
    pub kernel_mean_position: Option<f64>,
    pub requests_error: Option<f64>,
    pub bytes_error: Option<f64>,
}

/// Rows for every ext4 class either side used, in [`Class::ALL`] order.
pub fn rows(model: &BTreeMap<Class, Tally>, kernel: &BTreeMap<Class, Tally>) -> Vec<ClassRow> {
    rows_by(model, kernel, &Class::ALL, Class::name)
}

/// Rows for every class of `order` either side used, in that order, named by `name`.
pub fn rows_by<C: Ord + Copy>(
    model: &BTreeMap<C, Tally>,
    kernel: &BTreeMap<C, Tally>,
    order: &[C],
    name: fn(C) -> &'static str,
) -> Vec<ClassRow> {
    let zero = Tally::default();
    order
        .iter()
        .filter(|c| model.contains_key(c) || kernel.contains_key(c))
        .map(|&c| {
            let (m, k) = (model.get(&c).unwrap_or(&zero), kernel.get(&c).unwrap_or(&zero));
            ClassRow {
                class: name(c),
                model_requests: m.requests,
                kernel_requests: k.requests,
                model_bytes: m.bytes,
                kernel_bytes: k.bytes,
                model_flushes: m.flushes,
                kernel_flushes: k.flushes,
                model_fua: m.fua,
                kernel_fua: k.fua,
                model_windows: m.windows,
                kernel_windows: k.windows,
                model_mean_position: m.mean_position,
                kernel_mean_position: k.mean_position,
                requests_error: rel_err(m.requests, k.requests),
                bytes_error: rel_err(m.bytes, k.bytes),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requests::ReqOp;
    use flashlab_simfs::ext4_layout::Layout;

    #[test]
    fn tallies_and_errors() {
        let l = Layout::new(32768);
        let c = Classifier::new(&l, &[]);
        let w = |offset, bytes| Req { op: ReqOp::Write, offset, bytes, preflush: false, fua: false, at_ns: 0 };
        let f = Req { op: ReqOp::Flush, offset: 0, bytes: 0, preflush: true, fua: false, at_ns: 0 };
        let model = tally(&[w(100 << 20, 8192), f], &c, 128 << 20);
        let kernel = tally(&[w(100 << 20, 4096), w(96 << 20, 4 << 20), f, f], &c, 128 << 20);
        let r = rows(&model, &kernel);
        assert_eq!(r[0].class, "data");
        assert_eq!((r[0].model_windows, r[0].kernel_windows), (1, 2));
        assert_eq!(r[0].requests_error, Some(-0.5));
        let fl = r.iter().find(|r| r.class == "flush").unwrap();
        assert_eq!((fl.model_flushes, fl.kernel_flushes), (1, 2));
        assert_eq!(rel_err(3, 0), None);
    }
}
