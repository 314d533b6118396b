//! The devices table's discard column reads well within 80 columns (issue 19): its unit is
//! never broken into a dangling `max /` line, nor its values (`4.0 GiB/512 KiB`).

use flashlab_doctor::inspect;
use std::path::PathBuf;

#[test]
fn the_discard_unit_stays_whole() {
    for name in ["android-ext4-fuse", "laptop-nvme-timer", "ubuntu-sbc-emmc", "motoz-f2fs-esdfs"] {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
        let r = inspect(&dir);
        let dev = flashlab_doctor::render::tables(&r).remove(0);
        let drawn = flashlab_results::export::terminal(&dev);
        assert!(drawn.lines().all(|l| l.chars().count() <= 80), "{name}: wider than 80 columns:\n{drawn}");
        assert!(!drawn.lines().any(|l| l.trim_end().ends_with('/')), "{name}: a header line ends in '/':\n{drawn}");
        // Header, unit, one line per device: no cell of these short-named devices wraps.
        assert_eq!(drawn.lines().count(), 2 + dev.rows.len(), "{name}: a line wraps:\n{drawn}");
    }
}
