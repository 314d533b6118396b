//! What a simulated filesystem sent to its device, by purpose: user data, journal, metadata,
//! F2FS node blocks, cleaning copies, discards and flushes — and the filesystem-level write
//! amplification that follows.

use serde::Serialize;

/// Running totals since the filesystem was made. Bytes are bytes sent to the device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct FsCounters {
    /// Bytes the application asked to write (`io` with `Op::Write`).
    pub user_write_bytes: u64,
    /// File data written to the device (whole 4 KiB blocks on F2FS).
    pub data_bytes: u64,
    /// ext4: journal blocks (descriptors, metadata copies, commit blocks, journal superblock).
    pub journal_bytes: u64,
    /// Metadata written to its home location: ext4 checkpoints; F2FS NAT, SIT and checkpoint
    /// packs.
    pub metadata_bytes: u64,
    /// F2FS node blocks (inodes and direct nodes).
    pub node_bytes: u64,
    /// F2FS cleaning: valid blocks read from victims and written again.
    pub cleaning_read_bytes: u64,
    /// F2FS cleaning: the valid blocks written again (to the cold or node log).
    pub cleaning_write_bytes: u64,
    /// F2FS segments cleaned because a write needed free segments.
    pub cleaned_segments_foreground: u64,
    /// F2FS segments cleaned by the background cleaner in idle time.
    pub cleaned_segments_background: u64,
    /// ext4 journal commits.
    pub commits: u64,
    /// F2FS checkpoints; ext4 journal checkpoints (metadata written home).
    pub checkpoints: u64,
    /// Discard requests sent (online discard, fstrim and file trims).
    pub discards: u64,
    /// Bytes those discards covered.
    pub discard_bytes: u64,
    /// Zones reset (F2FS on a zoned device freeing a section); not written when none were.
    #[serde(skip_serializing_if = "is_zero")]
    pub zone_resets: u64,
    /// Cache flushes sent to the device.
    pub flushes_issued: u64,
    /// Flushes the filesystem would have sent but `nobarrier` dropped.
    pub flushes_dropped: u64,
    /// Device bytes written by the filesystem per byte the application wrote (1.0 before any).
    pub write_amplification: f64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl FsCounters {
    /// Every byte the filesystem wrote to the device.
    pub fn device_write_bytes(&self) -> u64 {
        self.data_bytes + self.journal_bytes + self.metadata_bytes + self.node_bytes + self.cleaning_write_bytes
    }

    /// Fill in `write_amplification` from the byte counts.
    pub(crate) fn with_waf(mut self) -> FsCounters {
        self.write_amplification = if self.user_write_bytes == 0 {
            1.0
        } else {
            self.device_write_bytes() as f64 / self.user_write_bytes as f64
        };
        self
    }

    /// Counters accumulated between `earlier` and `self` (write amplification recomputed).
    pub fn since(&self, e: &FsCounters) -> FsCounters {
        FsCounters {
            user_write_bytes: self.user_write_bytes - e.user_write_bytes,
            data_bytes: self.data_bytes - e.data_bytes,
            journal_bytes: self.journal_bytes - e.journal_bytes,
            metadata_bytes: self.metadata_bytes - e.metadata_bytes,
            node_bytes: self.node_bytes - e.node_bytes,
            cleaning_read_bytes: self.cleaning_read_bytes - e.cleaning_read_bytes,
            cleaning_write_bytes: self.cleaning_write_bytes - e.cleaning_write_bytes,
            cleaned_segments_foreground: self.cleaned_segments_foreground - e.cleaned_segments_foreground,
            cleaned_segments_background: self.cleaned_segments_background - e.cleaned_segments_background,
            commits: self.commits - e.commits,
            checkpoints: self.checkpoints - e.checkpoints,
            discards: self.discards - e.discards,
            discard_bytes: self.discard_bytes - e.discard_bytes,
            zone_resets: self.zone_resets - e.zone_resets,
            flushes_issued: self.flushes_issued - e.flushes_issued,
            flushes_dropped: self.flushes_dropped - e.flushes_dropped,
            write_amplification: 1.0,
        }
        .with_waf()
    }
}
