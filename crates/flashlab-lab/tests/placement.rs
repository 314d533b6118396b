//! The placement experiment (issue 47, acceptance 3) on a small version of the UFS 4.0 twins
//! (same NAND, 256 blocks per plane of 8 pages: 1024 zones of 1 MiB; the FDP twin is ufs-4.0
//! with an `[fdp]` table): the laws its figures must obey, and the mechanisms each placement is
//! there to show.

use flashlab_lab::experiments::placement::{run_placements, Family, PlacementConfig, PlacementResult};
use flashlab_lab::profiles::builtin;
use flashsim::{FdpConfig, Isolation, Profile};

fn small(name: &str) -> Profile {
    let text = builtin(name)
        .unwrap()
        .replace("blocks_per_plane = 171", "blocks_per_plane = 256")
        .replace("pages_per_block = 768", "pages_per_block = 8");
    Profile::from_toml(name, &text).unwrap()
}

/// ufs-4.0 with FDP (the experiment sets the handles and their isolation).
fn fdp_twin() -> Profile {
    let mut p = small("ufs-4.0");
    p.fdp = Some(FdpConfig { reclaim_groups: 1, handles: 1, isolation: vec![Isolation::InitiallyIsolated] });
    p.validate("ufs-4.0 with fdp").unwrap();
    p
}

fn run(family: Family) -> PlacementResult {
    let cfg = PlacementConfig {
        conventional: small("ufs-4.0"),
        zoned: small("zoned-ufs-4.0"),
        fdp: Some(fdp_twin()),
        family,
        live: 0.75,
        passes: 3.0,
        pe_cycles: 1000,
        seed: 1,
    };
    run_placements(&cfg, |_| {}).unwrap()
}

#[test]
fn every_placement_obeys_the_laws() {
    let r = run(Family::MultiStream);
    let names: Vec<&str> = r.rows.iter().map(|r| r.placement.as_str()).collect();
    assert_eq!(names, ["conventional", "streams", "fdp-initial", "fdp-persistent", "zoned"]);
    let app = r.rows[0].app_writes;
    for row in &r.rows {
        let name = &row.placement;
        assert_eq!(row.app_writes, app, "{name}: the same application writes in every placement");
        assert!(row.device_writes >= row.app_writes, "{name}: the device sees at least the application's writes");
        assert_eq!(row.device_writes - row.app_writes, row.host_gc_copies, "{name}: the rest is the host's cleaning");
        assert!(row.end_to_end_waf >= row.device_waf - 1e-9, "{name}: end to end includes the device's");
        assert!(
            row.end_to_end_waf >= row.data_waf * 0.98,
            "{name}: NAND writes hold at least the data (buffer merges aside)"
        );
        assert!(row.device_waf >= 0.99, "{name}: device WAF {}", row.device_waf);
        assert!(row.p50_us <= row.p99_us && row.p99_us <= row.p999_us && row.p999_us <= row.max_us, "{name}: {row:?}");
        // Lifetime x WAF is the NAND's P/E budget, whatever the placement.
        let budget = row.lifetime_tbw * 1e12 * row.end_to_end_waf;
        let expected = f64::from(r.pe_cycles) * r.nand_bytes as f64;
        assert!((budget / expected - 1.0).abs() < 1e-9, "{name}: TBW x WAF {budget} vs P/E x NAND {expected}");
        // FDP rows carry one WAF per handle (one per stream), each at least 1.
        if name.starts_with("fdp") {
            assert_eq!(row.handle_waf.len(), r.streams.len(), "{name}");
            assert!(row.handle_waf.iter().all(|&w| w >= 0.99), "{name}: {:?}", row.handle_waf);
        } else {
            assert!(row.handle_waf.is_empty(), "{name}");
        }
    }
}

fn by_name<'a>(r: &'a PlacementResult, name: &str) -> &'a flashlab_lab::experiments::placement::PlacementRow {
    r.rows.iter().find(|row| row.placement == name).unwrap()
}

#[test]
fn each_placement_shows_its_mechanism() {
    let r = run(Family::MultiStream);
    let [conv, streams, zoned] = [by_name(&r, "conventional"), by_name(&r, "streams"), by_name(&r, "zoned")];
    let [initial, persistent] = [by_name(&r, "fdp-initial"), by_name(&r, "fdp-persistent")];
    // Zones: no device GC, and the device writes what it is sent (padding aside).
    assert_eq!(zoned.device_gc_copies, 0);
    assert_eq!(zoned.map_writebacks, 0, "a zoned device keeps no mapping table");
    assert!(zoned.device_waf < 1.02, "zoned device WAF {}", zoned.device_waf);
    assert!(zoned.zone_resets > 0 && zoned.host_gc_copies > 0, "the host cleaned: {zoned:?}");
    // In place, the host writes each block once; GC is the device's.
    assert_eq!(conv.host_gc_copies, 0);
    assert!(conv.device_gc_copies > 0);
    // One frontier per stream keeps lifetimes apart: fewer GC copies than one shared frontier.
    assert!(streams.data_waf < conv.data_waf, "streams {} vs conventional {}", streams.data_waf, conv.data_waf);
    // FDP initially isolated is streams: host writes apart, GC copies shared.
    assert!((initial.data_waf / streams.data_waf - 1.0).abs() < 0.02, "{} vs {}", initial.data_waf, streams.data_waf);
    // Persistently isolated: each handle's GC copies stay with its data, so the survivors of
    // short-lived streams are not mixed with long-lived ones: fewer copies still.
    assert!(persistent.data_waf < initial.data_waf, "{} vs {}", persistent.data_waf, initial.data_waf);
}

/// The adversarial family: a log rewritten in order beside uniform writes. One frontier per
/// stream lets the log's blocks die whole, so GC copies far less than with one frontier.
#[test]
fn separating_a_log_from_random_writes_saves_copies() {
    let r = run(Family::Adversarial);
    let [conv, streams, zoned] = [by_name(&r, "conventional"), by_name(&r, "streams"), by_name(&r, "zoned")];
    assert!(streams.data_waf < 0.9 * conv.data_waf, "streams {} vs conventional {}", streams.data_waf, conv.data_waf);
    assert!(zoned.data_waf < conv.data_waf, "zoned {} vs conventional {}", zoned.data_waf, conv.data_waf);
}
