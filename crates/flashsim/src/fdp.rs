//! NVMe Flexible Data Placement (FDP, technical proposal TP4146) as a profile states it
//! (`[fdp]`) and as the device reports it: the configuration, the isolation of each reclaim
//! unit handle, and the per-handle statistics. The page-mapped FTL does the placement
//! (`ftl/fdp.rs`); docs/placement.md says what the model is and what it leaves out.
//!
//! The model, in FDP's terms:
//! - **Reclaim unit (RU)**: one erase block (all planes of one die), the unit the FTL fills
//!   through one write frontier and erases whole. A reclaim unit handle has one RU open on
//!   each die it has written to; its pages are striped over the dies in turn.
//! - **Reclaim unit handle (RUH)**: one of the FTL's host write frontiers
//!   (`ftl.host_streams` becomes `fdp.handles`). **Reclaim group**: every die, one group.
//! - **Placement ID**: the write request's [`crate::Request::stream`], the value NVMe carries
//!   in a write command's directive-specific field (DSPEC) for a stream or a placement
//!   identifier alike. Placement ID `h` selects handle `h`.
//! - **Isolation**: GC of an RU written through a *persistently isolated* handle copies its
//!   valid data into GC RUs of that handle alone; data of *initially isolated* handles is
//!   copied into GC RUs shared by all of them, where it mixes.

use serde::{Deserialize, Deserializer};

/// Most reclaim unit handles (the FTL's most host write frontiers).
pub const MAX_HANDLES: u32 = 8;

/// How a reclaim unit handle keeps its data apart when the device's GC moves it (TP4146).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// Host writes through the handle land in its own RUs; GC may move its valid data into
    /// RUs holding data of other initially isolated handles.
    InitiallyIsolated,
    /// GC moves the handle's data only into RUs of the same handle: its data never mixes.
    PersistentlyIsolated,
}

impl Isolation {
    /// The name a profile uses.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::InitiallyIsolated => "initially-isolated",
            Isolation::PersistentlyIsolated => "persistently-isolated",
        }
    }

    fn parse(s: &str) -> Option<Isolation> {
        [Isolation::InitiallyIsolated, Isolation::PersistentlyIsolated].into_iter().find(|i| i.name() == s)
    }
}

/// `[fdp]`: Flexible Data Placement on the page-mapped FTL.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FdpConfig {
    /// Reclaim groups (default 1, the only value modelled: every die in one group).
    #[serde(default = "one")]
    pub reclaim_groups: u32,
    /// Reclaim unit handles, 1 to [`MAX_HANDLES`]: placement IDs `0..handles`.
    pub handles: u32,
    /// The isolation of every handle (`"initially-isolated"` or `"persistently-isolated"`),
    /// or a list of one per handle.
    #[serde(deserialize_with = "isolation_list")]
    pub isolation: Vec<Isolation>,
}

fn one() -> u32 {
    1
}

/// `isolation = "..."` or `isolation = ["...", ...]`, each value named when it is wrong.
fn isolation_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Isolation>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    let names = match OneOrMany::deserialize(d).map_err(|_| {
        serde::de::Error::custom("expected \"initially-isolated\", \"persistently-isolated\" or a list of them")
    })? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    };
    names
        .iter()
        .map(|s| {
            Isolation::parse(s).ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "unknown isolation \"{s}\": expected \"initially-isolated\" or \"persistently-isolated\""
                ))
            })
        })
        .collect()
}

impl FdpConfig {
    /// The isolation of handle `h` (a single value applies to every handle).
    pub fn isolation_of(&self, h: u32) -> Isolation {
        if self.isolation.len() == 1 {
            self.isolation[0]
        } else {
            self.isolation[h as usize]
        }
    }

    /// Persistently isolated handles: each has GC RUs of its own.
    pub fn persistent_handles(&self) -> u32 {
        (0..self.handles).filter(|&h| self.isolation_of(h) == Isolation::PersistentlyIsolated).count() as u32
    }

    /// GC write frontiers: one shared by the initially isolated handles, one per persistently
    /// isolated handle.
    pub(crate) fn gc_frontiers(&self) -> u32 {
        1 + self.persistent_handles()
    }

    /// The checks of `[fdp]` alone (the profile checks how it fits the FTL); `(field, message)`.
    pub(crate) fn check(&self) -> Result<(), (&'static str, String)> {
        if self.reclaim_groups != 1 {
            return Err((
                "fdp.reclaim_groups",
                format!("only 1 reclaim group (every die) is modelled, got {}", self.reclaim_groups),
            ));
        }
        if self.handles == 0 || self.handles > MAX_HANDLES {
            return Err(("fdp.handles", format!("must be 1..={MAX_HANDLES}, got {}", self.handles)));
        }
        let n = self.isolation.len();
        if n != 1 && n != self.handles as usize {
            return Err((
                "fdp.isolation",
                format!("needs one value for every handle or a list of {} (one per handle), got {n}", self.handles),
            ));
        }
        Ok(())
    }
}

/// What the device reports of one reclaim unit handle.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct HandleStats {
    /// Its placement ID (its index; reclaim group 0).
    pub placement_id: u32,
    /// Its isolation.
    pub isolation: Isolation,
    /// Bytes the host wrote through it (4 KiB units; a partial unit counts whole).
    pub host_bytes: u64,
    /// Bytes programmed to NAND for it: its host data and the padding of its pages, and the
    /// GC copies of its data (into its own GC RUs when persistently isolated, into the shared
    /// ones when initially isolated).
    pub media_bytes: u64,
    /// Bytes still unwritten in the RUs it has open, over all dies (data waiting in the write
    /// buffer not deducted); an RU it has yet to open on a die counts nothing.
    pub ru_remaining_bytes: u64,
    /// Dies on which it has an RU open.
    pub open_rus: u32,
}

impl HandleStats {
    /// Media bytes per host byte (1.0 before any write).
    pub fn waf(&self) -> f64 {
        if self.host_bytes == 0 {
            1.0
        } else {
            self.media_bytes as f64 / self.host_bytes as f64
        }
    }
}

/// The device's FDP report: its configuration and every handle's statistics.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FdpStats {
    /// Reclaim groups.
    pub reclaim_groups: u32,
    /// Bytes of one RU (one erase block, all planes of a die).
    pub ru_bytes: u64,
    /// One entry per handle, by placement ID.
    pub handles: Vec<HandleStats>,
}

impl FdpStats {
    /// Host bytes over all handles.
    pub fn host_bytes(&self) -> u64 {
        self.handles.iter().map(|h| h.host_bytes).sum()
    }

    /// Media bytes over all handles.
    pub fn media_bytes(&self) -> u64 {
        self.handles.iter().map(|h| h.media_bytes).sum()
    }
}
