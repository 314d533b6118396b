//! Issue 17, acceptance 3 on emmc-5.1 (scaled to an eighth of the part, as
//! `bench/fill/emmc-eighth.toml`): a fill of a lived-in device gets slower in the p99 (the last
//! tenth's at least twice the first's) without trim, a daily fstrim since the owner's
//! deletions puts the rise later, and no write of either fill is above the busy-time ceiling.
//!
//! What makes it hold (docs/fill.md, "Session 30"): the first tenth's tail is a translation-page
//! read of the DRAM-less map cache queued behind a program on its die, and the last tenth's is
//! a paced GC copy (plus such a wait). Before the map cache packed its write-backs
//! (`ftl.map_writeback = "packed"`), every write-back was a program unit of its own and the
//! first tenth's p99 (2769 us) already sat where GC's did.

use flashlab_lab::experiments::fill::{run_fill, FillSpec};
use flashlab_lab::precondition::{self, Precondition};
use flashlab_lab::profiles::builtin;
use flashlab_simfs::FsConfig;
use flashsim::Profile;

/// emmc-5.1 with an eighth of its blocks (4 GiB): the same dies, pages, timings, map cache and
/// pacing; background GC's target scaled down with the blocks.
fn emmc51_eighth() -> Profile {
    let mut p = Profile::from_toml("emmc-5.1", builtin("emmc-5.1").unwrap()).unwrap();
    p.nand.blocks_per_plane = 128;
    p.ftl.bg_gc_target_free_blocks = 2;
    p.validate("emmc-5.1, an eighth").unwrap();
    p
}

/// The first tenth (1-based) whose p99 is at least twice the first tenth's; 11 if none is.
fn rise(p99: &[f64]) -> usize {
    p99.iter().position(|&v| v >= 2.0 * p99[0]).map_or(11, |i| i + 1)
}

#[test]
fn a_lived_in_emmc51_gets_slower_in_the_p99_and_daily_fstrim_puts_the_rise_later() {
    let p = emmc51_eighth();
    let ceiling_us = p.busy_ceiling_ms() * 1000.0;
    let mut rises = Vec::new();
    for fstrim in [false, true] {
        let (mut s, _) =
            precondition::system_with_trim(&p, 1, FsConfig::parse("plain").unwrap(), Precondition::Lived, fstrim)
                .unwrap();
        let f = run_fill(&mut s, &FillSpec::new(1, 1), |_| {}).unwrap();
        let p99: Vec<f64> = f.deciles.iter().map(|d| d.p99_us).collect();
        let max = f.deciles.iter().map(|d| d.max_us).fold(0.0, f64::max);
        eprintln!("fstrim {fstrim}: p99 per tenth {p99:?}, max {max} us");
        assert_eq!(p99.len(), 10);
        if !fstrim {
            assert!(p99[9] >= 2.0 * p99[0], "no trim: the last tenth's p99 vs the first's: {p99:?}");
        }
        assert!(max <= ceiling_us, "fstrim {fstrim}: a write took {max} us, past the {ceiling_us} us ceiling");
        rises.push(rise(&p99));
    }
    assert!(rises[1] > rises[0], "the p99 doubles at tenth {} without trim, {} with daily fstrim", rises[0], rises[1]);
}
