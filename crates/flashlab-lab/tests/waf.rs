//! The write-amplification experiment against the published numbers (issue 2, acceptance 1
//! and 2): FIFO against the analytical formula, greedy and random against the reference
//! simulation, TRIM against the FIFO formula with the live pages in place of the logical ones.
//!
//! Finite size: the device keeps a GC reserve (two free blocks plus the open block) out of its
//! spare, which biases WAF upwards by roughly reserve / spare blocks: about +3 % at Sf 0.07
//! with 1024 blocks, +0.4 % with 8192. The block counts below are chosen per spare factor so
//! that this bias stays well inside the tolerance (measured: see docs/waf.md), while the whole
//! file runs in seconds. Four logical passes, measured over the second half, reach the steady
//! state from the sequential prefill. Seeds are fixed: the runs are deterministic.

use flashlab_lab::experiments::waf::{run_waf, WafConfig, WafResult};
use flashsim::analytic::{waf_fifo, waf_random};
use flashsim::GcPolicy;

/// docs/reference.md section 3: write amplification under uniform random 4 KiB
/// writes. Columns: Sf, FIFO/LRU formula, greedy b=32, b=64, b=128, b=256, random. The greedy
/// and random columns come from an independent simulation (8192 blocks, one write frontier, GC
/// keeps at least 2 free blocks, sequential prefill, 8 logical passes, measured over the second
/// half; +-2 %). The reference does not say the random column's pages per block; its values
/// are ~1/Sf (Van Houdt), which does not depend on it; we run it with b=64.
/// (Sf, FIFO formula, greedy b=32, greedy b=64, greedy b=128, greedy b=256, random)
type Row = (f64, f64, f64, f64, f64, f64, f64);

const REFERENCE: [Row; 4] = [
    (0.07, 7.32, 6.07, 6.63, 6.97, 7.15, 14.3),
    (0.10, 5.18, 4.52, 4.83, 5.00, 5.09, 10.0),
    (0.20, 2.69, 2.52, 2.60, 2.65, 2.67, 5.02),
    (0.28, 1.99, 1.90, 1.94, 1.97, 1.98, 3.57),
];

fn run(policy: GcPolicy, spare: f64, pages_per_block: u32, blocks: u32, passes: f64, trimmed: f64) -> WafResult {
    let cfg = WafConfig { spare, pages_per_block, blocks, policy, passes, trimmed, seed: 1, ..Default::default() };
    run_waf(&cfg, |_| {}).unwrap_or_else(|e| panic!("{cfg:?}: {e}"))
}

/// Compare each (label, measured, expected) within `tol` (relative); report every row, fail on
/// any outside.
fn check(what: &str, tol: f64, rows: &[(String, f64, f64)]) {
    let mut bad = Vec::new();
    for (label, got, want) in rows {
        let err = got / want - 1.0;
        eprintln!("{what} {label}: measured {got:.4}, expected {want:.4} ({:+.2} %)", err * 100.0);
        if err.abs() > tol {
            bad.push(format!("{label}: {got:.4} vs {want:.4} ({:+.2} %)", err * 100.0));
        }
    }
    assert!(bad.is_empty(), "{what}: outside {:.0} %: {}", tol * 100.0, bad.join("; "));
}

#[test]
fn fifo_matches_the_formula_within_2_percent() {
    // Blocks per spare factor: the reserve's bias shrinks as spare blocks grow.
    let sizes = [(0.07, 4096), (0.10, 4096), (0.20, 2048), (0.28, 1024)];
    let rows: Vec<_> = sizes
        .iter()
        .map(|&(sf, blocks)| {
            let r = run(GcPolicy::Fifo, sf, 64, blocks, 4.0, 0.0);
            (format!("Sf {sf} b=64 {blocks} blocks"), r.write_amplification, waf_fifo(sf))
        })
        .collect();
    check("FIFO", 0.02, &rows);
}

fn greedy(pages_per_block: u32, blocks: u32, column: fn(&Row) -> f64) {
    let rows: Vec<_> = REFERENCE
        .iter()
        .map(|row| {
            let sf = row.0;
            let r = run(GcPolicy::Greedy, sf, pages_per_block, blocks, 4.0, 0.0);
            (format!("Sf {sf} b={pages_per_block} {blocks} blocks"), r.write_amplification, column(row))
        })
        .collect();
    check("greedy", 0.03, &rows);
}

#[test]
fn greedy_b64_matches_the_reference_within_3_percent() {
    greedy(64, 4096, |r| r.3);
}

#[test]
fn greedy_b256_matches_the_reference_within_3_percent() {
    greedy(256, 2048, |r| r.5);
}

#[test]
fn random_matches_the_reference_within_5_percent() {
    let rows: Vec<_> = REFERENCE
        .iter()
        .map(|row| {
            let sf = row.0;
            // Random victims make WAF noisier: eight passes.
            let r = run(GcPolicy::Random, sf, 64, 2048, 8.0, 0.0);
            // The reference column is ~1/Sf (Van Houdt).
            assert!((row.6 / waf_random(sf) - 1.0).abs() < 0.01);
            (format!("Sf {sf} b=64 2048 blocks"), r.write_amplification, row.6)
        })
        .collect();
    check("random", 0.05, &rows);
}

#[test]
fn trim_follows_the_fifo_formula_with_the_live_pages() {
    // First order (reference section 3): replace U by the live pages, so the effective spare
    // factor is (T - live) / T with T the physical pages.
    let cases = [(0.07, 0.5, 2048), (0.28, 0.5, 1024), (0.07, 0.2, 2048)];
    let mut rows = Vec::new();
    for (sf, trimmed, blocks) in cases {
        let r = run(GcPolicy::Fifo, sf, 64, blocks, 4.0, trimmed);
        let physical = f64::from(blocks) * 64.0;
        assert!(r.live_pages < r.logical_pages, "nothing was trimmed: {r:?}");
        let sf_eff = (physical - r.live_pages as f64) / physical;
        rows.push((
            format!("Sf {sf} trimmed {trimmed} (Sf_eff {sf_eff:.4}) {blocks} blocks"),
            r.write_amplification,
            waf_fifo(sf_eff),
        ));
        // And TRIM matters: the untrimmed device amplifies far more.
        assert!(r.write_amplification < waf_fifo(sf) * 0.9);
    }
    check("FIFO with TRIM", 0.03, &rows);
}

#[test]
fn same_config_and_seed_give_identical_results() {
    let cfg = WafConfig {
        spare: 0.1,
        pages_per_block: 32,
        blocks: 512,
        policy: GcPolicy::Random,
        passes: 2.0,
        trimmed: 0.3,
        seed: 7,
        ..Default::default()
    };
    let json = |cfg: &WafConfig| serde_json::to_string(&run_waf(cfg, |_| {}).unwrap()).unwrap();
    let first = json(&cfg);
    assert_eq!(first, json(&cfg), "same config and seed, different results");
    for policy in [GcPolicy::Greedy, GcPolicy::CostBenefit, GcPolicy::Fifo] {
        let cfg = WafConfig { policy, ..cfg.clone() };
        assert_eq!(json(&cfg), json(&cfg), "{policy:?}: same config and seed, different results");
    }
    // The seed is used: another one gives another random sequence.
    assert_ne!(first, json(&WafConfig { seed: 8, ..cfg }), "the seed changes nothing");
}
