//! Issue 17, acceptance 3 on emmc-5.1 (the whole 32 GB part, lived in, seed 1).
//!
//! - Without trim, the last tenth's p99 is at least 2x the first tenth's, and carries at least
//!   one GC page program (tPROG) more: the first tenth's tail is a translation-page read of the
//!   DRAM-less map cache waiting for the program in progress on its die (the controller serves
//!   reads before queued programs, `read_priority`), the last tenth's a paced GC page copy on
//!   top (docs/fill.md, "Session 34"). Before the read priority the map read waited behind
//!   every program queued on its die, and the ratio was 1.86-1.98x (seeds 1-4); before the map
//!   cache packed its write-backs (`ftl.map_writeback = "packed"`) each write-back was a
//!   program unit of its own, and the first tenth's p99 (2998 us) was already where GC's was.
//! - A daily fstrim since the owner's deletions puts the rise later.
//! - No write of either fill is above the busy-time ceiling.

use flashlab_lab::experiments::fill::{run_fill, FillSpec};
use flashlab_lab::precondition::{self, Precondition};
use flashlab_lab::profiles::builtin;
use flashlab_simfs::FsConfig;
use flashsim::Profile;

/// The first tenth (1-based) whose p99 is at least 1.75x the first tenth's; 11 if none is.
fn rise(p99: &[f64]) -> usize {
    p99.iter().position(|&v| v >= 1.75 * p99[0]).map_or(11, |i| i + 1)
}

#[test]
fn a_lived_in_emmc51_doubles_its_p99_through_the_fill_and_daily_fstrim_puts_the_rise_later() {
    let p = Profile::from_toml("emmc-5.1", builtin("emmc-5.1").unwrap()).unwrap();
    let ceiling_us = p.busy_ceiling_ms() * 1000.0;
    let t_prog_us = p.nand.t_prog_us;
    let mut rises = Vec::new();
    for fstrim in [false, true] {
        let (mut s, _) =
            precondition::system_with_trim(&p, 1, FsConfig::parse("plain").unwrap(), Precondition::Lived, fstrim)
                .unwrap();
        let f = run_fill(&mut s, &FillSpec::new(1, 1), |_| {}).unwrap();
        let p99: Vec<f64> = f.deciles.iter().map(|d| d.p99_us).collect();
        let max = f.deciles.iter().map(|d| d.max_us).fold(0.0, f64::max);
        eprintln!("fstrim {fstrim}: p99 per tenth {p99:?} (last/first {:.2}), max {max} us", p99[9] / p99[0]);
        assert_eq!(p99.len(), 10);
        if !fstrim {
            assert!(
                p99[9] >= p99[0] + t_prog_us,
                "no trim: the last tenth's p99 should carry a GC page program ({t_prog_us} us) more than the first's: {p99:?}"
            );
            assert!(p99[9] >= 2.0 * p99[0], "no trim: the last tenth's p99 should be at least 2x the first's: {p99:?}");
        }
        assert!(max <= ceiling_us, "fstrim {fstrim}: a write took {max} us, past the {ceiling_us} us ceiling");
        rises.push(rise(&p99));
    }
    assert!(
        rises[1] > rises[0],
        "the p99 reaches 1.75x at tenth {} without trim, {} with daily fstrim",
        rises[0],
        rises[1]
    );
}
