//! fio's data placement options, as a job file gives them: `fdp`, `dataplacement`
//! (`data_placement`), `plids` (`fdp_pli`), `plid_select` (`fdp_pli_select`) and `dp_scheme`,
//! and the choice of each write's placement ID they make.
//!
//! The meaning follows fio's HOWTO, `dataplacement.c`, `init.c` and `io_u.c` (master of
//! 2026): writes carry a placement ID (FDP) or a stream ID (streams), reads and trims none;
//! `plids` lists the indices (FDP) or stream IDs (streams) a job may use, by default every
//! handle the device reports; `plid_select` walks them in turn (`roundrobin`, fio's default),
//! draws one uniformly (`random`) or takes the one whose offset range in the `dp_scheme` file
//! holds the write (`scheme`; a write outside every range gets 0, `plids` is ignored). The
//! runner checks them against the device and passes the ID with each write.

use crate::Error;
use serde::{Deserialize, Serialize};

/// The options this module reads.
pub const OPTION_NAMES: &[&str] = &["fdp", "dataplacement", "plid_select", "plids", "dp_scheme"];

/// fio's most placement IDs a job may list (`FIO_MAX_DP_IDS`).
pub const MAX_IDS: usize = 128;
/// fio's most `dp_scheme` entries (`DP_MAX_SCHEME_ENTRIES`); later lines are ignored.
pub const MAX_SCHEME_ENTRIES: usize = 32;

/// fio's `dataplacement`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Directive {
    /// No placement (fio's default).
    #[default]
    None,
    /// Flexible Data Placement: placement IDs select reclaim unit handles.
    Fdp,
    /// NVMe streams: the IDs are stream IDs.
    Streams,
}

/// fio's `plid_select`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Select {
    /// In turn over the job's IDs (fio's default).
    #[default]
    RoundRobin,
    /// Uniformly at random among them.
    Random,
    /// By the write's offset, from the `dp_scheme` file.
    Scheme,
}

/// One `dp_scheme` line: writes at `start <= offset < end` get placement index `id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemeEntry {
    /// First byte.
    pub start: u64,
    /// Byte past the last.
    pub end: u64,
    /// Placement ID (index).
    pub id: u32,
}

/// The placement options of one job, with fio's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PlacementOptions {
    /// `fdp=1` was given.
    pub fdp: bool,
    /// `dataplacement=`, `None` when not given.
    pub directive: Option<Directive>,
    /// `plid_select=`.
    pub select: Select,
    /// `plids=` / `fdp_pli=`: the indices (FDP) or stream IDs (streams); empty: all.
    pub ids: Vec<u32>,
    /// `dp_scheme=`: the scheme file's path.
    pub scheme_file: Option<String>,
    /// The scheme file's entries, read by the runner when the job starts (fio reads it then).
    #[serde(default)]
    pub scheme: Vec<SchemeEntry>,
}

impl PlacementOptions {
    /// The directive in force: `dataplacement`, or FDP with `fdp=1` (fio's
    /// `fixup_options`).
    pub fn directive(&self) -> Directive {
        match self.directive {
            Some(d) => d,
            None if self.fdp => Directive::Fdp,
            None => Directive::None,
        }
    }

    /// Writes carry a placement or stream ID.
    pub fn on(&self) -> bool {
        self.directive() != Directive::None
    }
}

/// Reads `plids`: comma-separated values and `a-b` ranges.
fn parse_ids(v: &str) -> Result<Vec<u32>, Error> {
    let bad = |what: &str| Error::Bad {
        what: "placement ID list",
        value: v.to_string(),
        expected: format!("comma-separated IDs or ranges such as 0,2-4 ({what})"),
    };
    let mut ids = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let num = |s: &str| s.trim().parse::<u32>().map_err(|_| bad("not a number"));
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(part)?, num(part)?),
        };
        if a > b {
            return Err(bad("a range must rise"));
        }
        for id in a..=b {
            if ids.len() == MAX_IDS {
                return Err(bad("at most 128 IDs"));
            }
            ids.push(id);
        }
    }
    if ids.is_empty() {
        return Err(bad("none given"));
    }
    Ok(ids)
}

/// Sets the placement option `name` of `p` from `v`.
pub fn apply(p: &mut PlacementOptions, name: &str, v: &str) -> Result<(), Error> {
    let t = v.trim();
    match name {
        "fdp" => {
            p.fdp = match t {
                "1" | "true" | "on" | "yes" => true,
                "0" | "false" | "off" | "no" => false,
                _ => return Err(Error::Bad { what: "value", value: v.to_string(), expected: "0 or 1".into() }),
            }
        }
        "dataplacement" => {
            p.directive = Some(match t {
                "none" => Directive::None,
                "fdp" => Directive::Fdp,
                "streams" => Directive::Streams,
                _ => {
                    return Err(Error::Bad {
                        what: "value",
                        value: v.to_string(),
                        expected: "none, fdp or streams".into(),
                    })
                }
            })
        }
        "plid_select" => {
            p.select = match t {
                "roundrobin" => Select::RoundRobin,
                "random" => Select::Random,
                "scheme" => Select::Scheme,
                _ => {
                    return Err(Error::Bad {
                        what: "value",
                        value: v.to_string(),
                        expected: "roundrobin, random or scheme".into(),
                    })
                }
            }
        }
        "plids" => p.ids = parse_ids(t)?,
        "dp_scheme" => p.scheme_file = Some(t.to_string()),
        _ => unreachable!("not a placement option: {name}"),
    }
    Ok(())
}

/// Whole-job checks (fio's `fixup_options` and `dp_init`); `(option, message)`.
pub fn finalize(job: &crate::Job) -> Result<(), (&'static str, String)> {
    let p = &job.placement;
    if p.fdp && matches!(p.directive, Some(Directive::None | Directive::Streams)) {
        return Err((
            "fdp",
            format!(
                "job '{}': fdp=1 is not compatible with dataplacement=none or streams (fio refuses it too)",
                job.name
            ),
        ));
    }
    if p.directive() == Directive::Streams && p.ids.is_empty() {
        return Err((
            "dataplacement",
            format!("job '{}': dataplacement=streams needs the stream IDs in plids (fio's rule)", job.name),
        ));
    }
    if p.select == Select::Scheme && p.on() && p.scheme_file.is_none() {
        return Err(("plid_select", format!("job '{}': plid_select=scheme needs a dp_scheme file", job.name)));
    }
    Ok(())
}

/// Reads a `dp_scheme` file's text: lines of `start, end, id` (bytes, bytes, index); fio
/// reads the first [`MAX_SCHEME_ENTRIES`] and stops at the first line that is not one.
pub fn parse_scheme(text: &str) -> Vec<SchemeEntry> {
    let mut out = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let entry = match f.as_slice() {
            [a, b, c] => match (a.parse(), b.parse(), c.parse::<u16>()) {
                (Ok(start), Ok(end), Ok(id)) => SchemeEntry { start, end, id: u32::from(id) },
                _ => break,
            },
            _ => break,
        };
        if out.len() == MAX_SCHEME_ENTRIES {
            break;
        }
        out.push(entry);
    }
    out
}

/// Chooses each write's placement ID, as fio's `dp_fill_dspec_data` does: the job's IDs
/// resolved against the device (`ids`: the IDs themselves, not indices), the selection and
/// its state.
#[derive(Debug, Clone)]
pub struct Selector {
    ids: Vec<u32>,
    select: Select,
    scheme: Vec<SchemeEntry>,
    next: usize,
    rng: u64,
}

impl Selector {
    /// A selector over `ids` (never empty) with `select`, `scheme` (for [`Select::Scheme`])
    /// and a seed for [`Select::Random`].
    pub fn new(ids: Vec<u32>, select: Select, scheme: Vec<SchemeEntry>, seed: u64) -> Selector {
        assert!(!ids.is_empty() || select == Select::Scheme, "a placement selector needs IDs");
        Selector { ids, select, scheme, next: 0, rng: seed | 1 }
    }

    /// The placement ID of the next write, at byte `offset` of the device.
    #[inline]
    pub fn next(&mut self, offset: u64) -> u32 {
        match self.select {
            Select::RoundRobin => {
                if self.next >= self.ids.len() {
                    self.next = 0;
                }
                let id = self.ids[self.next];
                self.next += 1;
                id
            }
            Select::Random => {
                self.rng ^= self.rng << 13;
                self.rng ^= self.rng >> 7;
                self.rng ^= self.rng << 17;
                self.ids[(self.rng % self.ids.len() as u64) as usize]
            }
            Select::Scheme => self.scheme.iter().find(|e| offset >= e.start && offset < e.end).map_or(0, |e| e.id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(text: &str) -> Result<crate::Job, String> {
        let f = crate::parse::parse_jobfile("t.fio", &format!("[j]\n{text}")).map_err(|e| e.to_string())?;
        Ok(f.jobs.into_iter().next().unwrap())
    }

    #[test]
    fn options_read_as_fio_reads_them() {
        let j = job("rw=randwrite\nfdp=1\nfdp_pli=0,2-4\nfdp_pli_select=random\n").unwrap();
        let p = &j.placement;
        assert_eq!(p.directive(), Directive::Fdp);
        assert_eq!(p.ids, [0, 2, 3, 4]);
        assert_eq!(p.select, Select::Random);
        let j = job("rw=write\ndata_placement=streams\nplids=1,3\n").unwrap();
        assert_eq!(j.placement.directive(), Directive::Streams);
        assert!(!job("rw=write\n").unwrap().placement.on());
    }

    #[test]
    fn bad_combinations_are_refused_naming_the_option() {
        let e = job("rw=write\nfdp=1\ndataplacement=streams\nplids=1\n").unwrap_err();
        assert!(e.contains("'fdp'") && e.contains("not compatible"), "{e}");
        let e = job("rw=write\ndataplacement=streams\n").unwrap_err();
        assert!(e.contains("'dataplacement'") && e.contains("plids"), "{e}");
        let e = job("rw=write\nfdp=1\nplid_select=scheme\n").unwrap_err();
        assert!(e.contains("dp_scheme"), "{e}");
        let e = job("rw=write\nfdp=1\nplids=3-1\n").unwrap_err();
        assert!(e.contains("'plids'") && e.contains("rise"), "{e}");
        let e = job("rw=write\nplid_select=sometimes\n").unwrap_err();
        assert!(e.contains("roundrobin, random or scheme"), "{e}");
        let e = job("rw=write\ndataplacement=zns\n").unwrap_err();
        assert!(e.contains("none, fdp or streams"), "{e}");
    }

    #[test]
    fn selection_follows_fio() {
        let mut rr = Selector::new(vec![0, 1, 2], Select::RoundRobin, vec![], 1);
        let got: Vec<u32> = (0..7).map(|_| rr.next(0)).collect();
        assert_eq!(got, [0, 1, 2, 0, 1, 2, 0]);
        let mut r = Selector::new(vec![5, 7], Select::Random, vec![], 3);
        let got: Vec<u32> = (0..1000).map(|_| r.next(0)).collect();
        let fives = got.iter().filter(|&&i| i == 5).count();
        assert!(got.iter().all(|&i| i == 5 || i == 7) && (400..600).contains(&fives), "{fives}");
        let scheme = parse_scheme("0, 4096, 1\n4096,8192,2\n0,100000,3\nnot a line\n9,10,4\n");
        assert_eq!(scheme.len(), 3, "reading stops at the first line that is not an entry");
        let mut s = Selector::new(vec![], Select::Scheme, scheme, 1);
        assert_eq!([s.next(0), s.next(4096), s.next(9000), s.next(200_000)], [1, 2, 3, 0]);
    }
}
