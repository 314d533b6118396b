//! Device counters: what the host asked for and what the NAND did, from which write
//! amplification and wear follow.

use serde::Serialize;

/// Running totals since the device was created. Units are 4 KiB mapping units unless the name
/// says bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Counters {
    /// Bytes the host asked to read.
    pub host_read_bytes: u64,
    /// Bytes the host asked to write.
    pub host_write_bytes: u64,
    /// Bytes the host asked to trim (unmap); only whole 4 KiB units inside them are unmapped.
    pub host_trim_bytes: u64,
    /// Read requests.
    pub host_reads: u64,
    /// Write requests.
    pub host_writes: u64,
    /// Trim requests.
    pub host_trims: u64,
    /// Flush (cache drain) requests.
    pub host_flushes: u64,
    /// 4 KiB units the host wrote (a partial unit counts as one).
    pub host_units_written: u64,
    /// Host writes absorbed by a unit still in the write buffer.
    pub buffer_coalesced_units: u64,
    /// NAND page reads (a page on every plane of a die counts once): host reads, GC and merge
    /// reads, mapping-cache misses.
    pub nand_page_reads: u64,
    /// NAND page programs (a page on every plane of a die counts once): host data, GC copies,
    /// padding, mapping-table write-backs.
    pub nand_page_programs: u64,
    /// Units programmed to NAND: host data, GC copies and padding of partly filled pages.
    pub nand_units_programmed: u64,
    /// Units garbage collection (or a hybrid FTL's merges) copied to a new place.
    pub gc_units_copied: u64,
    /// Translation pages a DRAM-less controller's mapping cache read from NAND (its misses).
    pub map_page_reads: u64,
    /// Dirty translation pages the mapping cache wrote back to NAND.
    pub map_page_writes: u64,
    /// Host units programmed in SLC mode (the SLC write cache).
    pub slc_units_written: u64,
    /// Units folded from the SLC cache into the main (TLC) area in idle time.
    pub slc_units_folded: u64,
    /// Victim blocks cleaned while host commands waited (foreground GC).
    pub gc_victims_foreground: u64,
    /// Victim blocks cleaned in idle time (background GC).
    pub gc_victims_background: u64,
    /// Block erases.
    pub erases: u64,
}

impl Counters {
    /// NAND units programmed per host unit written (1.0 before any write).
    pub fn write_amplification(&self) -> f64 {
        if self.host_units_written == 0 {
            1.0
        } else {
            self.nand_units_programmed as f64 / self.host_units_written as f64
        }
    }

    /// Counters accumulated between `earlier` and `self`.
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            host_read_bytes: self.host_read_bytes - earlier.host_read_bytes,
            host_write_bytes: self.host_write_bytes - earlier.host_write_bytes,
            host_trim_bytes: self.host_trim_bytes - earlier.host_trim_bytes,
            host_reads: self.host_reads - earlier.host_reads,
            host_writes: self.host_writes - earlier.host_writes,
            host_trims: self.host_trims - earlier.host_trims,
            host_flushes: self.host_flushes - earlier.host_flushes,
            host_units_written: self.host_units_written - earlier.host_units_written,
            buffer_coalesced_units: self.buffer_coalesced_units - earlier.buffer_coalesced_units,
            nand_page_reads: self.nand_page_reads - earlier.nand_page_reads,
            nand_page_programs: self.nand_page_programs - earlier.nand_page_programs,
            nand_units_programmed: self.nand_units_programmed - earlier.nand_units_programmed,
            gc_units_copied: self.gc_units_copied - earlier.gc_units_copied,
            map_page_reads: self.map_page_reads - earlier.map_page_reads,
            map_page_writes: self.map_page_writes - earlier.map_page_writes,
            slc_units_written: self.slc_units_written - earlier.slc_units_written,
            slc_units_folded: self.slc_units_folded - earlier.slc_units_folded,
            gc_victims_foreground: self.gc_victims_foreground - earlier.gc_victims_foreground,
            gc_victims_background: self.gc_victims_background - earlier.gc_victims_background,
            erases: self.erases - earlier.erases,
        }
    }
}

/// Erase-count spread over all blocks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Wear {
    /// Erases of the least-erased block.
    pub min_erases: u32,
    /// Erases of the most-erased block.
    pub max_erases: u32,
    /// Mean erases per block.
    pub mean_erases: f64,
}

impl Wear {
    /// Minimum, maximum and mean of per-block erase counts.
    pub fn of(erase_counts: &[u32]) -> Wear {
        let (mut min, mut max, mut sum) = (u32::MAX, 0, 0u64);
        for &e in erase_counts {
            min = min.min(e);
            max = max.max(e);
            sum += u64::from(e);
        }
        Wear { min_erases: min, max_erases: max, mean_erases: sum as f64 / erase_counts.len().max(1) as f64 }
    }
}

/// A snapshot of the device's state beside its counters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DeviceState {
    /// Erased blocks in the free lists (the hybrid FTL counts blocks waiting to be erased too).
    pub free_blocks: u64,
    /// Erase blocks on the device (dies x blocks per die).
    pub total_blocks: u64,
    /// 4 KiB units on NAND that hold the latest copy of some logical unit.
    pub valid_units: u64,
    /// 4 KiB units the host can address.
    pub logical_units: u64,
    /// 4 KiB units of NAND, spare included.
    pub physical_units: u64,
    /// Host units in the SLC write cache not yet folded (0 without a cache).
    pub slc_cached_units: u64,
    /// Erase counts over all blocks.
    pub wear: Wear,
}
