//! fio's I/O priorities: the job's own (`prio`, `prioclass`, `priohint`) and the per-command
//! ones of its asynchronous engines (`cmdprio_percentage`, `cmdprio_class`, `cmdprio`,
//! `cmdprio_hint`, `cmdprio_bssplit`), with fio's meaning (its `engines/cmdprio.c` and HOWTO):
//!
//! - A priority is Linux's `ioprio` value: `class << 13 | hint << 3 | level` (a class of 0 with
//!   a level or hint set is read as best effort, 2, as fio's `ioprio_value`).
//! - The job's priority (`prio`/`prioclass`/`priohint`, when any is set; else 0) is every
//!   I/O's priority unless a per-command one is drawn.
//! - `cmdprio_percentage=R,W`: that share of each direction's I/Os gets
//!   `cmdprio_class`/`cmdprio`/`cmdprio_hint` (the class defaults to real time, 1).
//! - `cmdprio_bssplit=R,W`: entries `bs/perc[/class/level[/hint]]` separated by `:`; of the I/Os
//!   of size `bs`, `perc` % get the entry's priority (or the `cmdprio_class`/`cmdprio` one when
//!   the entry names none). Entries of 0 % are dropped, as fio does. Trims never get one.
//! - The two are mutually exclusive. Per direction, the report keeps one latency histogram per
//!   distinct priority, the job's own first ([`PrioTable::ioprios`]), as fio's `clat_prio`.
//!
//! [`PrioTable::pick`] draws an I/O's priority with no allocation.

use serde::{Deserialize, Serialize};

use crate::Error;

/// The one-line note a simulated run gives for per-command priorities.
pub const SIM_NOTE: &str = "the simulated host interfaces (eMMC, UFS, NVMe) model no priority arbitration and serve commands in arrival order: each I/O's priority is drawn and its latency reported per priority, but a high priority does not overtake a queued command";

/// Linux's `IOPRIO_CLASS_RT`: fio's default `cmdprio_class`.
pub const CLASS_RT: u32 = 1;
/// Linux's `IOPRIO_CLASS_BE`.
pub const CLASS_BE: u32 = 2;

/// Linux's ioprio value of `class`, `level` and `hint` (fio's `ioprio_value`: no class means
/// best effort).
pub fn ioprio_value(class: u32, level: u32, hint: u32) -> u16 {
    let class = if class == 0 { CLASS_BE } else { class };
    ((class.min(7) << 13) | (hint.min(1023) << 3) | level.min(7)) as u16
}

/// The class of an ioprio value.
pub fn ioprio_class(v: u16) -> u32 {
    u32::from(v >> 13)
}

/// The level of an ioprio value.
pub fn ioprio_level(v: u16) -> u32 {
    u32::from(v & 7)
}

/// One `cmdprio_bssplit` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BsPrio {
    /// The block size it applies to, bytes.
    pub bs: u64,
    /// Percentage of the I/Os of that size.
    pub perc: u32,
    /// Its priority; `None`: the `cmdprio_class`/`cmdprio`/`cmdprio_hint` one.
    pub prio: Option<u16>,
}

/// A job's priority options, as given (read, write).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrioOptions {
    /// `prio=` (level 0-7), if given.
    pub prio: Option<u32>,
    /// `prioclass=` (0-3), if given.
    pub prioclass: Option<u32>,
    /// `priohint=`, if given.
    pub priohint: Option<u32>,
    /// `cmdprio_percentage=` per direction.
    pub percentage: [u32; 2],
    /// `cmdprio_class=` per direction (0: not set, real time).
    pub class: [u32; 2],
    /// `cmdprio=` per direction.
    pub level: [u32; 2],
    /// `cmdprio_hint=` per direction.
    pub hint: [u32; 2],
    /// `cmdprio_bssplit=` per direction, sorted by block size, 0 % entries dropped.
    pub bssplit: [Vec<BsPrio>; 2],
    /// `cmdprio_bssplit=` was given (even if every entry was 0 %).
    pub bssplit_set: bool,
}

/// The options this module reads (fio's names), for the parser.
pub const OPTION_NAMES: &[&str] = &[
    "prio",
    "prioclass",
    "priohint",
    "cmdprio_percentage",
    "cmdprio_class",
    "cmdprio",
    "cmdprio_hint",
    "cmdprio_bssplit",
];

fn bad(v: &str, expected: &str) -> Error {
    Error::Bad { what: "value", value: v.to_string(), expected: expected.to_string() }
}

fn number(v: &str, max: u32, expected: &str) -> Result<u32, Error> {
    match v.trim().parse::<u32>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(bad(v, expected)),
    }
}

/// fio's `R,W` list of a per-direction option: one value sets both; `,W` only writes. A third
/// (trim) value is accepted and ignored, as fio's cmdprio options have no trim slot.
fn per_dir(v: &str, mut one: impl FnMut(&str) -> Result<u32, Error>) -> Result<[Option<u32>; 2], Error> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(Error::Value { value: v.to_string(), problem: "at most three values (read,write,trim)".into() });
    }
    if parts.len() == 1 {
        let x = one(parts[0])?;
        return Ok([Some(x), Some(x)]);
    }
    let mut out = [None, None];
    for (i, p) in parts.iter().take(2).enumerate() {
        if !p.is_empty() {
            out[i] = Some(one(p)?);
        }
    }
    Ok(out)
}

fn set(dst: &mut [u32; 2], v: [Option<u32>; 2]) {
    for (d, x) in dst.iter_mut().zip(v) {
        if let Some(x) = x {
            *d = x;
        }
    }
}

/// One direction's `cmdprio_bssplit` list (fio's `split_parse_prio_ddir`).
fn parse_bssplit_dir(v: &str, kb_base: u32) -> Result<Vec<BsPrio>, Error> {
    let mut out = Vec::new();
    for e in v.split(':') {
        if e.is_empty() {
            break;
        }
        let f: Vec<&str> = e.split('/').map(str::trim).collect();
        let expected = "bs/percentage[/class/level[/hint]], e.g. 64k/25/1/0";
        let bs = crate::units::parse_size(f[0], kb_base)?;
        let perc = match f.get(1) {
            None | Some(&"") => 0,
            Some(p) => number(p, u32::MAX, expected)?.min(100),
        };
        let prio = match f.len() {
            1 | 2 => None,
            4 | 5 => {
                let class = number(f[2], u32::MAX, expected)?.min(3);
                let level = number(f[3], u32::MAX, expected)?.min(7);
                let hint = if f.len() == 5 { number(f[4], u32::MAX, expected)?.min(1023) } else { 0 };
                Some(ioprio_value(class, level, hint))
            }
            _ => return Err(bad(e, expected)),
        };
        if out.len() >= 64 {
            return Err(Error::Value { value: v.to_string(), problem: "too many cmdprio_bssplit entries".into() });
        }
        if perc > 0 {
            out.push(BsPrio { bs, perc, prio });
        }
    }
    out.sort_by_key(|e| e.bs);
    Ok(out)
}

/// Applies option `name` (one of [`OPTION_NAMES`]) with value `v`.
pub fn apply(o: &mut PrioOptions, name: &str, v: &str, kb_base: u32) -> Result<(), Error> {
    match name {
        "prio" => o.prio = Some(number(v, 7, "a level from 0 to 7")?),
        "prioclass" => o.prioclass = Some(number(v, 3, "a class from 0 to 3")?),
        "priohint" => o.priohint = Some(number(v, 1023, "a hint from 0 to 1023")?),
        "cmdprio_percentage" => set(&mut o.percentage, per_dir(v, |p| number(p, 100, "a percentage from 0 to 100"))?),
        "cmdprio_class" => set(&mut o.class, per_dir(v, |p| number(p, 3, "a class from 0 to 3"))?),
        "cmdprio" => set(&mut o.level, per_dir(v, |p| number(p, 7, "a level from 0 to 7"))?),
        "cmdprio_hint" => set(&mut o.hint, per_dir(v, |p| number(p, 1023, "a hint from 0 to 1023"))?),
        "cmdprio_bssplit" => {
            let parts: Vec<&str> = v.split(',').map(str::trim).collect();
            if parts.len() > 3 {
                return Err(Error::Value {
                    value: v.to_string(),
                    problem: "at most three lists (read,write,trim)".into(),
                });
            }
            let r = parse_bssplit_dir(parts[0], kb_base)?;
            let w = match parts.get(1) {
                None => r.clone(),
                Some(p) => parse_bssplit_dir(p, kb_base)?,
            };
            o.bssplit = [r, w];
            o.bssplit_set = true;
        }
        other => return Err(Error::Internal { option: other.to_string() }),
    }
    Ok(())
}

impl PrioOptions {
    /// The job's own priority (fio's `td->ioprio`): set when `prio`, `prioclass` or
    /// `priohint` is; else 0 (none).
    pub fn job_ioprio(&self) -> u16 {
        if self.prio.is_none() && self.prioclass.is_none() && self.priohint.is_none() {
            0
        } else {
            ioprio_value(self.prioclass.unwrap_or(0), self.prio.unwrap_or(0), self.priohint.unwrap_or(0))
        }
    }

    /// Per-command priorities are used (`cmdprio_percentage` or `cmdprio_bssplit`).
    pub fn cmdprio(&self) -> bool {
        self.bssplit_set || self.percentage.iter().any(|&p| p > 0)
    }

    /// Any priority option is set: the job's own or per command.
    pub fn any(&self) -> bool {
        self.job_ioprio() != 0 || self.cmdprio()
    }

    /// Whole-job checks (fio's `fio_cmdprio_init`): `Err((option, message))`.
    pub fn check(&self, job: &str) -> Result<(), (&'static str, String)> {
        if self.bssplit_set && self.percentage.iter().any(|&p| p > 0) {
            return Err((
                "cmdprio_bssplit",
                format!("job '{job}': cmdprio_percentage and cmdprio_bssplit are mutually exclusive"),
            ));
        }
        for l in &self.bssplit {
            let mut i = 0;
            while i < l.len() {
                let bs = l[i].bs;
                let total: u32 = l.iter().filter(|e| e.bs == bs).map(|e| e.perc).sum();
                if total > 100 {
                    return Err((
                        "cmdprio_bssplit",
                        format!("job '{job}': cmdprio_bssplit's percentages for block size {bs} add up to {total}, more than 100"),
                    ));
                }
                i += l[i..].iter().take_while(|e| e.bs == bs).count();
            }
        }
        Ok(())
    }

    /// The table [`PrioTable::pick`] draws from, for a job that reads (`reads`) and writes
    /// (`writes`).
    pub fn table(&self, reads: bool, writes: bool) -> PrioTable {
        let job = self.job_ioprio();
        let mut t = PrioTable { job, dirs: [DirTable::default(), DirTable::default()] };
        for d in 0..2 {
            if !(if d == 0 { reads } else { writes }) {
                continue;
            }
            let class = if self.class[d] == 0 { CLASS_RT } else { self.class[d] };
            let implicit = ioprio_value(class, self.level[d], self.hint[d]);
            let dt = &mut t.dirs[d];
            if self.bssplit_set {
                if self.bssplit[d].is_empty() {
                    continue;
                }
                dt.ioprios.push(job);
                for e in &self.bssplit[d] {
                    let slot = dt.slot_of(e.prio.unwrap_or(implicit));
                    match dt.by_bs.last_mut() {
                        Some(b) if b.bs == e.bs => {
                            b.total += e.perc;
                            b.cum.push((b.total, slot));
                        }
                        _ => dt.by_bs.push(BsTable { bs: e.bs, total: e.perc, cum: vec![(e.perc, slot)] }),
                    }
                }
            } else if self.percentage[d] > 0 {
                dt.ioprios.push(job);
                let slot = dt.slot_of(implicit);
                dt.perc = Some((self.percentage[d], slot));
            }
        }
        t
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct BsTable {
    bs: u64,
    total: u32,
    /// (cumulative percentage, slot), rising.
    cum: Vec<(u32, u8)>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct DirTable {
    /// The distinct priorities, the job's own first; empty: no per-command priorities.
    ioprios: Vec<u16>,
    perc: Option<(u32, u8)>,
    by_bs: Vec<BsTable>,
}

impl DirTable {
    fn slot_of(&mut self, p: u16) -> u8 {
        match self.ioprios.iter().position(|&x| x == p) {
            Some(i) => i as u8,
            None => {
                self.ioprios.push(p);
                (self.ioprios.len() - 1) as u8
            }
        }
    }
}

/// What a job's I/Os are sent with, per direction (fio's `cmdprio` state, built once).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrioTable {
    job: u16,
    dirs: [DirTable; 2],
}

impl PrioTable {
    /// The job's own priority (0: none).
    pub fn job_ioprio(&self) -> u16 {
        self.job
    }

    /// The distinct priorities of direction `dir` (0 read, 1 write), slot 0 the job's own;
    /// empty when the direction has no per-command priorities (fio then reports none).
    pub fn ioprios(&self, dir: u8) -> &[u16] {
        self.dirs.get(dir as usize).map_or(&[], |d| &d.ioprios)
    }

    /// The ioprio value of `slot` in direction `dir`.
    #[inline]
    pub fn ioprio(&self, dir: u8, slot: u8) -> u16 {
        self.dirs.get(dir as usize).and_then(|d| d.ioprios.get(slot as usize)).copied().unwrap_or(self.job)
    }

    /// The slot of an I/O of `len` bytes in direction `dir` (0: the job's own priority);
    /// `roll` draws a number below 100 when the I/O may get a per-command priority (fio's
    /// `fio_cmdprio_set_ioprio`).
    #[inline]
    pub fn pick(&self, dir: u8, len: u64, roll: impl FnOnce() -> u32) -> u8 {
        let Some(d) = self.dirs.get(dir as usize) else { return 0 };
        if let Some((perc, slot)) = d.perc {
            return if roll() < perc { slot } else { 0 };
        }
        let Some(b) = d.by_bs.iter().find(|b| b.bs == len) else { return 0 };
        let r = roll();
        if r >= b.total {
            return 0;
        }
        b.cum.iter().find(|&&(c, _)| r < c).map_or(0, |&(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> PrioOptions {
        let mut o = PrioOptions::default();
        for (k, v) in pairs {
            apply(&mut o, k, v, 1024).unwrap();
        }
        o
    }

    #[test]
    fn values_as_linux_and_fio() {
        assert_eq!(ioprio_value(1, 0, 0), 1 << 13);
        assert_eq!(ioprio_value(0, 7, 0), (2 << 13) | 7, "no class: best effort");
        assert_eq!(ioprio_value(2, 3, 1), (2 << 13) | (1 << 3) | 3);
        assert_eq!(opts(&[]).job_ioprio(), 0);
        assert_eq!(opts(&[("prioclass", "3")]).job_ioprio(), 3 << 13);
    }

    #[test]
    fn percentage_per_direction() {
        let o =
            opts(&[("prioclass", "3"), ("cmdprio_percentage", "20,30"), ("cmdprio_class", "1,2"), ("cmdprio", "0,3")]);
        let t = o.table(true, true);
        assert_eq!(t.ioprios(0), &[3 << 13, 1 << 13]);
        assert_eq!(t.ioprios(1), &[3 << 13, (2 << 13) | 3]);
        assert_eq!(t.pick(0, 4096, || 19), 1);
        assert_eq!(t.pick(0, 4096, || 20), 0);
        assert_eq!(t.pick(1, 4096, || 29), 1);
        assert!(t.ioprios(2).is_empty());
        // A job that only reads has no write table.
        assert!(o.table(true, false).ioprios(1).is_empty());
    }

    #[test]
    fn bssplit_entries() {
        let o = opts(&[("cmdprio_bssplit", "64k/25/1/1:64k/75/3/2:1024k/0,1024k/0")]);
        let t = o.table(true, true);
        assert_eq!(t.ioprios(0), &[0, (1 << 13) | 1, (3 << 13) | 2]);
        assert!(t.ioprios(1).is_empty(), "0 % entries are dropped");
        assert_eq!(t.pick(0, 65536, || 24), 1);
        assert_eq!(t.pick(0, 65536, || 25), 2);
        assert_eq!(t.pick(0, 65536, || 99), 2);
        assert_eq!(t.pick(0, 1 << 20, || 0), 0);
        // An entry without a priority takes cmdprio_class/cmdprio (RT by default).
        let t = opts(&[("cmdprio_bssplit", "64k/100:1024k/0,1024k/0"), ("cmdprio_class", "1"), ("cmdprio", "0")])
            .table(true, true);
        assert_eq!(t.ioprios(0), &[0, 1 << 13]);
        assert_eq!(t.pick(0, 65536, || 99), 1);
    }

    #[test]
    fn checks() {
        let o = opts(&[("cmdprio_bssplit", "4k/50"), ("cmdprio_percentage", "10")]);
        assert!(o.check("j").unwrap_err().1.contains("mutually exclusive"));
        let o = opts(&[("cmdprio_bssplit", "4k/60/1/0:4k/50/2/0")]);
        assert!(o.check("j").unwrap_err().1.contains("more than 100"));
        let mut o = PrioOptions::default();
        assert!(apply(&mut o, "cmdprio_percentage", "101", 1024).is_err());
        assert!(apply(&mut o, "cmdprio_bssplit", "4k/50/1", 1024).is_err());
        assert!(apply(&mut o, "prio", "8", 1024).is_err());
    }
}
