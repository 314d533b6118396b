//! `--precondition`: the device states it sets up, checked through the device's own state and
//! invariants, and the behaviour each state must show.

use flashlab_lab::precondition::{system, Precondition};
use flashlab_lab::profiles::builtin;
use flashlab_simfs::{FileId, FsConfig};
use flashsim::{Op, Profile};

fn profile(name: &str) -> Profile {
    Profile::from_toml(name, builtin(name).expect("built-in profile")).unwrap()
}

fn check(profile: &str) {
    let p = self::profile(profile);
    let (fresh, r) = system(&p, 1, FsConfig::plain(false), Precondition::Fresh).unwrap();
    assert_eq!(fresh.device().state().valid_units, 0);
    assert_eq!(r.bulk_mapped_bytes, 0);
    let (used, r) = system(&p, 1, FsConfig::plain(false), Precondition::Used).unwrap();
    let s = used.device().state();
    assert_eq!(s.valid_units, s.logical_units, "{profile}: used maps every logical unit");
    assert_eq!(r.bulk_mapped_bytes, used.device().logical_bytes());
    assert_eq!(used.device().counters().host_write_bytes, 0, "history is not counted in the run");
    used.device().check_invariants().unwrap_or_else(|e| panic!("{profile} used: {e}"));
    // Physical blocks holding data: at least the logical capacity's worth.
    let per_block = s.physical_units / s.total_blocks;
    assert!(s.total_blocks - s.free_blocks >= s.logical_units / per_block, "{profile}: {s:?}");
}

#[test]
fn used_maps_everything_page_and_hybrid() {
    check("toy");
    check("nexus7-2012");
    check("emmc-16g");
}

/// On a used device every random write lands among live data: the page FTL must collect
/// garbage (WAF > 1) within a capacity's worth of writes, where the fresh device has none.
#[test]
fn used_device_collects_garbage_fresh_does_not() {
    let p = profile("toy");
    let mut waf = vec![];
    for pre in [Precondition::Fresh, Precondition::Used] {
        let (mut sys, _) = system(&p, 1, FsConfig::plain(false), pre).unwrap();
        let units = sys.device().logical_bytes() / 4096;
        let mut t = sys.now();
        let mut rng = flashlab_lab::rng::Rng::new(7);
        for _ in 0..units / 2 {
            let lpn = rng.below(units);
            t = sys.io(t, FileId::RAW, Op::Write, lpn * 4096, 4096).unwrap().done;
        }
        sys.device().check_invariants().unwrap();
        waf.push(sys.device().counters().write_amplification());
    }
    assert!(waf[0] < 1.05, "fresh: half a capacity of random writes fits in free blocks, WAF {}", waf[0]);
    assert!(waf[1] > 1.3, "used: GC copies live data, WAF {}", waf[1]);
}

/// Steady: the PTS rule holds at the end, random writes were simulated, and the device's
/// state is past the write cliff (free blocks down to the GC threshold region).
#[test]
fn steady_reaches_steady_state() {
    let p = profile("toy");
    let (sys, r) = system(&p, 1, FsConfig::plain(false), Precondition::Steady).unwrap();
    assert!(r.steady, "{}", r.summary());
    assert!(r.rounds_iops.len() >= 5);
    assert!(r.random_write_bytes > 0);
    assert!(r.counters.write_amplification() > 1.5, "{}", r.summary());
    assert_eq!(sys.device().counters().host_write_bytes, 0);
    assert!(sys.now() > 0, "the run starts after the preconditioning");
    sys.device().check_invariants().unwrap();
}
