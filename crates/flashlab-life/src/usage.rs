//! The usage model's parameters: how much a user writes, reads and deletes each day, how full
//! they keep the device, and their day (sessions, idle, charging). Read from TOML by
//! [`crate::usage_toml`]; the built-in presets are in [`crate::presets`]; [`crate::workload`]
//! turns them into file operations.

use serde::Serialize;

/// New files are drawn from size classes: a class by weight, then a size log-uniform in
/// [min, max].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeClass {
    /// Smallest file of the class, in bytes.
    pub min: u64,
    /// Largest file of the class, in bytes.
    pub max: u64,
    /// Relative weight of the class among the classes.
    pub weight: f64,
}

/// The user's day. Hours are 0..24 on the virtual clock (day 0 starts at midnight).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DayCycle {
    /// Hours [start, end) in which the user is active; `end` may be below `start` (past midnight)
    /// and equal to it for all day.
    pub active_start_h: u32,
    /// End hour of the active window (exclusive).
    pub active_end_h: u32,
    /// Bursts of activity per day, evenly spread over the active hours.
    pub sessions: u32,
    /// Hours on the charger [start, end), or always / never.
    pub charging: Charging,
    /// Battery percentage points used per hour off the charger, and gained per hour on it.
    pub drain_pct_per_h: f64,
    /// Battery percentage points gained per hour on the charger.
    pub charge_pct_per_h: f64,
}

/// When the phone is on its charger.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Charging {
    /// On the charger in the hours [start, end), which may wrap past midnight.
    Hours {
        /// First hour on the charger (0..24).
        start: u32,
        /// First hour off it again.
        end: u32,
    },
    /// On the charger all day.
    Always,
    /// Never on the charger.
    Never,
}

/// Is hour `h` (0..24) in the window [start, end) that may wrap past midnight (start == end:
/// all day)?
pub fn in_window(h: u32, start: u32, end: u32) -> bool {
    if start == end {
        true
    } else if start < end {
        (start..end).contains(&h)
    } else {
        h >= start || h < end
    }
}

impl DayCycle {
    /// Hours a day the user is active (24 when start equals end).
    pub fn active_hours(&self) -> u32 {
        if self.active_start_h == self.active_end_h {
            24
        } else {
            (self.active_end_h + 24 - self.active_start_h) % 24
        }
    }

    /// Whether the phone is on its charger at hour `h` (0..24).
    pub fn charging_at(&self, h: u32) -> bool {
        match self.charging {
            Charging::Always => true,
            Charging::Never => false,
            Charging::Hours { start, end } => in_window(h, start, end),
        }
    }
}

/// A usage model: what a phone's user writes, rewrites, reads and deletes each day, and when.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usage {
    /// Short name (a preset's name, or the file's `name`).
    pub name: String,
    /// One line saying whom it models.
    pub description: String,
    /// Bytes of new files written per day.
    pub daily_write: u64,
    /// In-place rewrites of existing files (databases, app state) per day, bytes, in requests of
    /// `overwrite_bs` at random offsets.
    pub daily_overwrite: u64,
    /// Size of one in-place rewrite request, in bytes.
    pub overwrite_bs: u64,
    /// fsync after this many bytes of a file's writes (and at the end of each new file); 0 =
    /// never.
    pub fsync_every: u64,
    /// Size classes of new files.
    pub file_sizes: Vec<SizeClass>,
    /// Share of new files that are temporary (caches, downloads moved elsewhere): deleted at the
    /// user's next session.
    pub temp_fraction: f64,
    /// Bytes read from existing files per day (what reaches the device; the page cache absorbs
    /// the rest).
    pub daily_read: u64,
    /// Data present before day 0 and never deleted (system, apps, media), as a fraction of the
    /// filesystem's capacity.
    pub base_fill: f64,
    /// The user deletes their oldest files whenever the filesystem is fuller than this.
    pub keep_fill: f64,
    /// The user's day: active hours, sessions, charging, battery.
    pub day: DayCycle,
}

impl Usage {
    /// The same usage with every volume multiplied by `f` (for running a model meant for one
    /// device size on a smaller device; fill levels are fractions and stay). File sizes scale
    /// too but stay at least 4 KiB.
    pub fn scaled(&self, f: f64) -> Usage {
        let s = |b: u64| ((b as f64 * f) as u64).max(4096) / 4096 * 4096;
        let mut u = self.clone();
        u.daily_write = (self.daily_write as f64 * f) as u64;
        u.daily_overwrite = (self.daily_overwrite as f64 * f) as u64;
        u.daily_read = (self.daily_read as f64 * f) as u64;
        for c in &mut u.file_sizes {
            c.min = s(c.min);
            c.max = s(c.max).max(c.min);
        }
        u
    }

    /// Mean size of a new file, bytes.
    pub fn mean_file_size(&self) -> f64 {
        let total: f64 = self.file_sizes.iter().map(|c| c.weight).sum();
        self.file_sizes
            .iter()
            .map(|c| {
                let m = if c.max > c.min {
                    (c.max - c.min) as f64 / ((c.max as f64).ln() - (c.min as f64).ln())
                } else {
                    c.min as f64
                };
                m * c.weight / total
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_wrap() {
        assert!(in_window(23, 22, 7) && in_window(3, 22, 7) && !in_window(12, 22, 7));
        assert!(in_window(8, 7, 23) && !in_window(23, 7, 23));
        assert!(in_window(5, 0, 0));
    }
}
