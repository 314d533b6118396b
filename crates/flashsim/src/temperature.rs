//! Data temperature for write placement: which host write frontier a unit goes to.
//!
//! Controllers and F2FS keep hot data (soon overwritten) apart from cold data (rarely
//! overwritten) so that a block fills with data that dies at about the same time; GC then
//! finds blocks that are nearly empty instead of blocks where a few hot units died among many
//! cold ones. The profile's `ftl.temperature` chooses where the temperature comes from:
//!
//! - `off` (default): the request's stream number, whatever it means to the host.
//! - `hint`: the host's stream or lifetime hint (NVMe streams, F2FS's hot/warm/cold logs,
//!   Linux `RWH_WRITE_LIFE_*`) names the frontier; flashlab reads stream 0 as cold and higher
//!   numbers as hotter.
//! - `detect`: the device's own detection by update frequency (Hsieh, Kuo and Chang, ACM TOS
//!   2006; Stoica and Ailamaki, VLDB 2013): a saturating write counter per logical unit, aged
//!   by halving. Units written at least `HOT_COUNT` (4) times in the aging window go to the hot
//!   frontier (stream 1), the rest to the cold one (stream 0).
//!
//! GC copies go to their own frontier (`separate_gc_frontier`, required with temperature on):
//! data that survived to be copied is old, and mixing it with fresh host data is what
//! separation avoids. With `gc_by_temperature` GC has two frontiers, and a copied unit goes to
//! the hot or the cold one by its temperature now (the detector's count, or the host's last
//! hint), so that hot data GC moves does not end up among cold data either
//! (the page-mapped FTL's `ftl/gc_split.rs`).
//!
//! The counters are one byte per logical unit in one flat array; aging halves one counter per
//! host write at a moving cursor, so each counter is halved once per logical pass and no
//! request pays for a sweep of the whole table.

use serde::Deserialize;

/// Where the FTL takes a written unit's temperature from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TemperatureMode {
    /// No placement by temperature (the request's stream, usually 0).
    #[default]
    Off,
    /// The host's stream / lifetime hint.
    Hint,
    /// The device's own update-frequency detector.
    Detect,
}

impl TemperatureMode {
    /// The mode as a profile or the command line spells it (`off`, `hint`, `detect`).
    pub fn name(self) -> &'static str {
        match self {
            TemperatureMode::Off => "off",
            TemperatureMode::Hint => "hint",
            TemperatureMode::Detect => "detect",
        }
    }

    /// Read a mode as [`TemperatureMode::name`] spells it (`none` also means off); `None` for
    /// anything else.
    pub fn parse(s: &str) -> Option<TemperatureMode> {
        match s {
            "off" | "none" => Some(TemperatureMode::Off),
            "hint" => Some(TemperatureMode::Hint),
            "detect" => Some(TemperatureMode::Detect),
            _ => None,
        }
    }
}

/// Stream the detector gives cold data.
pub const COLD_STREAM: u32 = 0;
/// Stream the detector gives hot data.
pub const HOT_STREAM: u32 = 1;
/// A unit is hot once its aged write count reaches this. Each counter is halved once per
/// logical pass, so a unit written `k` times per pass settles between `k` and `2k`; the
/// average unit is written once per pass, and 4 marks units updated at least about twice as
/// often as the average (the hot side of Hsieh et al.'s and Stoica and Ailamaki's splits).
pub(crate) const HOT_COUNT: u8 = 4;

/// The update-frequency detector: per-unit aged write counts.
#[derive(Debug, Clone)]
pub(crate) struct Detector {
    counts: Vec<u8>,
    /// Next counter the aging halves.
    cursor: u32,
    /// Host unit writes classified hot and cold.
    pub(crate) hot_writes: u64,
    pub(crate) cold_writes: u64,
}

impl Detector {
    pub(crate) fn new(logical_units: u32) -> Detector {
        Detector { counts: vec![0; logical_units as usize], cursor: 0, hot_writes: 0, cold_writes: 0 }
    }

    /// Count a host write of `lpn` and return the stream it goes to.
    #[inline]
    pub(crate) fn classify(&mut self, lpn: u32) -> u32 {
        let c = &mut self.counts[lpn as usize];
        *c = c.saturating_add(1);
        let hot = *c >= HOT_COUNT;
        // Age one counter: over one logical pass of writes, every counter is halved once.
        let a = &mut self.counts[self.cursor as usize];
        *a >>= 1;
        self.cursor += 1;
        if self.cursor as usize == self.counts.len() {
            self.cursor = 0;
        }
        if hot {
            self.hot_writes += 1;
            HOT_STREAM
        } else {
            self.cold_writes += 1;
            COLD_STREAM
        }
    }

    /// Remember the host's hint for `lpn` (hint mode with GC by temperature): a hot stream
    /// marks it hot, the cold one cold, until its next write.
    #[inline]
    pub(crate) fn remember(&mut self, lpn: u32, stream: u32) {
        self.counts[lpn as usize] = if stream == COLD_STREAM { 0 } else { HOT_COUNT };
    }

    /// Whether `lpn` counts as hot now (for GC's choice of frontier; counts nothing).
    #[inline]
    pub(crate) fn is_hot(&self, lpn: u32) -> bool {
        self.counts[lpn as usize] >= HOT_COUNT
    }

    /// Heap bytes of the counters.
    pub(crate) fn memory_bytes(&self) -> u64 {
        self.counts.capacity() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequently_written_units_turn_hot_and_rare_ones_stay_cold() {
        let mut d = Detector::new(1000);
        // Unit 7 written every 10th write (100 times a pass); the rest round robin.
        let mut last7 = COLD_STREAM;
        let mut others_hot = 0;
        for i in 0..20_000u32 {
            if i % 10 == 0 {
                last7 = d.classify(7);
            } else if d.classify(100 + i % 900) == HOT_STREAM {
                others_hot += 1;
            }
        }
        assert_eq!(last7, HOT_STREAM);
        assert_eq!(others_hot, 0, "units written once a pass never reach {HOT_COUNT}");
        assert_eq!(d.hot_writes + d.cold_writes, 20_000);
    }

    #[test]
    fn a_unit_that_stops_being_written_cools_down() {
        let mut d = Detector::new(100);
        for _ in 0..50 {
            d.classify(3);
        }
        // Ten passes of writes elsewhere halve its count ten times.
        for i in 0..1000u32 {
            d.classify(10 + i % 90);
        }
        assert_eq!(d.classify(3), COLD_STREAM, "ten halvings leave nothing of 50 writes");
    }
}
