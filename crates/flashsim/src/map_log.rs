//! Where a DRAM-less controller's mapping cache writes its dirty translation pages back
//! (`ftl.map_writeback`): each one alone (`page`), or staged and programmed a full program unit
//! at a time (`packed`).
//!
//! A translation page here is 4 KiB (1024 entries of 4 bytes, [`crate::mapcache`]), while the
//! NAND's program unit is a page on every plane of a die (`units_per_page` x 4 KiB: 32 KiB on a
//! two-plane part with 16 KiB pages).
//!
//! - `page` (default): each write-back is a program unit of its own on die `tpage % dies`, DFTL's
//!   model (Gupta et al., ASPLOS 2009), where a translation page is one flash page. On a part
//!   whose program unit holds 8 translation pages it programs 8x the NAND time and counts 8
//!   units programmed per 4 KiB of mapping. The DRAM-less profiles calibrated before session
//!   30 (emmc-4.5, motox-2013, ufs-3.1, sd-card) were fitted with it: with `packed` their
//!   random-write cells move 42-128 % (`flashlab calibrate --all`), so they keep it until
//!   recalibrated.
//! - `packed`: translation pages are written like any other data. In MQSim's page-level
//!   mapping unit (`Address_Mapping_Unit_Page_Level::generate_flash_writeback_request_for_mapping_data`)
//!   a write-back is allocated a page in a plane's translation write frontier, and its
//!   transaction scheduler joins writes on the planes of a die into one multi-plane program:
//!   a write-back is a page write, not a program unit of its own. So an evicted dirty
//!   translation page is held in controller SRAM (one program unit's worth, beside the cache)
//!   until `units_per_page` of them fill a program unit, which is programmed on the next die in
//!   turn. On a lived-in emmc-5.1 fill (seed 1) this cut the first tenth's p99 from 2998 to
//!   1417 us (1384 with the translation read issued before the staged program): with a program per write-back, the dies were busy with map programs and
//!   translation-page reads queued behind them (docs/fill.md, "Session 30").
//!
//! Simplifications, stated: a staged translation page is not re-read from the stage (a miss on
//! it reads NAND as any miss does), a flush does not program a partial stage (the mapping is
//! recoverable from the logical addresses each data page carries in its spare area, the usual
//! power-loss recovery of page-mapped FTLs), and translation pages take no space in the data
//! blocks (as before).

use crate::nand::Nand;
use crate::profile::MapWriteback;
use crate::timeline::Ns;

/// The staged dirty translation pages and the die of the next map program.
#[derive(Debug, Clone)]
pub(crate) struct MapLog {
    /// Stage write-backs into full program units (`packed`), or program each alone.
    packed: bool,
    /// Translation pages staged, waiting for a full program unit (the NAND's 4 KiB units
    /// per page).
    staged: u32,
    /// Die of the next program unit (round robin).
    next_die: u32,
    /// Program time of a translation page's program unit (SLC mode where the device has an
    /// SLC cache).
    t_prog: Ns,
}

impl MapLog {
    /// An empty log whose programs take `t_prog`.
    pub(crate) fn new(t_prog: Ns, writeback: MapWriteback) -> MapLog {
        MapLog { packed: writeback == MapWriteback::Packed, staged: 0, next_die: 0, t_prog }
    }

    /// Write-backs are staged in SRAM (`packed`): the cache may issue the translation read that
    /// evicted one before the write-back's program (a `page` write-back is programmed from the
    /// slot the read needs, so it goes first).
    #[inline]
    pub(crate) fn staged(&self) -> bool {
        self.packed
    }

    /// Write back dirty translation page `tpage`, evicted at `at`; returns the program units
    /// started (0 or 1). The program occupies its die and channel; no host command waits for it.
    #[inline]
    pub(crate) fn write_back(&mut self, tpage: u32, at: Ns, nand: &mut Nand) -> u64 {
        if !self.packed {
            nand.program_for(nand.geo.die_round_robin(tpage), at, self.t_prog);
            return 1;
        }
        self.staged += 1;
        if self.staged < nand.geo.units_per_page {
            return 0;
        }
        self.staged = 0;
        let die = self.next_die;
        self.next_die = if die + 1 >= nand.geo.dies { 0 } else { die + 1 };
        nand.program_for(die, at, self.t_prog);
        1
    }
}
