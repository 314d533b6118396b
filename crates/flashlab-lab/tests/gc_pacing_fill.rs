//! Issue 17, acceptance 3 and 2's ceiling on a page-mapped FTL with large erase blocks: a fill
//! of a lived-in device gets slower in the p99 (GC paced over the commands, docs/fill.md),
//! and no request of the fill is above the profile's busy-time ceiling.

use flashlab_lab::experiments::fill::{run_fill, FillSpec};
use flashlab_lab::precondition::{self, Precondition};
use flashlab_simfs::FsConfig;
use flashsim::Profile;

/// The toy device with 4 MiB erase blocks (512 pages of 8 KiB): one victim's copies take
/// longer than the 250 ms ceiling, as on emmc-5.1's 8 MiB blocks. The profile is flashsim's
/// test fixture, shared with its GC-pacing test.
fn big_blocks() -> Profile {
    let text = include_str!("../../flashsim/tests/fixtures/toy-4mib-blocks.toml");
    Profile::from_toml("toy-4mib-blocks.toml", text).unwrap()
}

#[test]
fn a_lived_in_device_with_large_blocks_gets_slower_in_the_p99_within_the_ceiling() {
    let p = big_blocks();
    let ceiling_us = p.busy_ceiling_ms() * 1000.0;
    for fstrim in [false, true] {
        let (mut s, _) =
            precondition::system_with_trim(&p, 1, FsConfig::parse("plain").unwrap(), Precondition::Lived, fstrim)
                .unwrap();
        let f = run_fill(&mut s, &FillSpec::new(1, 4), |_| {}).unwrap();
        let p99: Vec<f64> = f.deciles.iter().map(|d| d.p99_us).collect();
        let max: Vec<f64> = f.deciles.iter().map(|d| d.max_us).collect();
        eprintln!("fstrim {fstrim}: p99 per tenth {p99:?}, max {max:?}");
        assert!(p99[9] >= 2.0 * p99[0], "fstrim {fstrim}: last tenth's p99 vs first: {p99:?}");
        for (i, m) in max.iter().enumerate() {
            assert!(
                *m <= ceiling_us,
                "fstrim {fstrim}: tenth {}: a write took {m} us, past the {ceiling_us} us ceiling",
                i + 1
            );
        }
    }
}
