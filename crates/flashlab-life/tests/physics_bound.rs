//! `life` never projects more than the NAND can take (issue 17, acceptance 5): on every
//! built-in profile under every trim policy, every sample's projected host TB written is at
//! most physical bytes x rated P/E cycles / the run's WAF, and the projected lifetime is the
//! same budget in time (projected TBW = TB written so far x lifetime / time elapsed).
//!
//! Large profiles are shrunk (fewer blocks per die, shorter blocks) so that a run takes little
//! memory and time; the bound is a law of any geometry.

use flashlab_lab::shrink::{nand_bytes, shrunk};
use flashlab_life::policy::{Policy, DAY};
use flashlab_life::presets::preset;
use flashlab_life::runner::{run_life, LifeConfig};
use flashsim::Profile;
use proptest::prelude::*;

const MAX_BYTES: u64 = 1 << 30;

/// The built-in profile `i`, shrunk to at most [`MAX_BYTES`] of NAND where it validates.
fn profile(i: usize) -> Profile {
    // A zoned device takes no filesystem model yet (docs/zoned.md): its conventional twin.
    let (name, text) = match flashlab_lab::profiles::BUILTIN[i] {
        ("zoned-ufs-4.0", _) => ("ufs-4.0", flashsim::builtin::text("ufs-4.0").unwrap()),
        ("nvme-gen3-zns", _) => ("nvme-gen3", flashsim::builtin::text("nvme-gen3").unwrap()),
        named => named,
    };
    let p = Profile::from_toml(name, text).unwrap();
    shrunk(&p, MAX_BYTES).unwrap_or_else(|| panic!("{name}: no shrunk geometry validates"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn projected_tbw_never_exceeds_the_physical_ceiling(
        i in 0..flashlab_lab::profiles::BUILTIN.len(),
        policy in prop::sample::select(vec!["none", "discard", "fstrim:7d", "android", "on-notice"]),
        seed in 1u64..1000,
    ) {
        let p = profile(i);
        // A heavy day scaled to this device (the preset is for a 32 GB phone), for 4 days.
        let logical = p.logical_bytes() as f64;
        let usage = preset("heavy-phone").unwrap().scaled(logical / 32e9);
        let mut cfg = LifeConfig::new(Policy::parse(policy).unwrap(), 4 * DAY, seed);
        cfg.probe_every = 0;
        let r = run_life(&p, &usage, &cfg, |_| {}).unwrap();
        let phys = nand_bytes(&p) as f64;
        let mut checked = 0;
        for s in &r.samples {
            let (Some(tbw), Some(years)) = (s.projected_tbw_tb, s.lifetime_years) else { continue };
            checked += 1;
            let ceiling = phys * f64::from(r.pe_cycles) / s.waf / 1e12;
            prop_assert!(
                tbw <= ceiling * (1.0 + 1e-9),
                "{} {policy} day {}: projected {tbw} TB > ceiling {ceiling} TB (WAF {})", p.name, s.day, s.waf
            );
            let elapsed = s.day / 365.25;
            let same_budget = s.tbw_tb * years / elapsed;
            prop_assert!((same_budget - tbw).abs() <= 1e-9 * tbw.max(1e-12), "{} day {}: lifetime {years} y and TBW {tbw} disagree", p.name, s.day);
            prop_assert!(s.lifetime_years_worst_block.is_some_and(|w| w <= years * (1.0 + 1e-12)));
        }
        prop_assert!(checked > 0, "{} {policy}: no sample had a projection", p.name);
    }
}
