//! Issue 23 from the command line: `sim waf --distribution/--separate`, `life` with the JESD219
//! enterprise workload, the client workload's request for JEDEC's trace, and trace statistics.

mod common;

use common::{fails, ok};

#[test]
fn sim_waf_with_a_hot_cold_distribution_and_separation() {
    let out = ok(&[
        "sim",
        "waf",
        "--blocks",
        "512",
        "--passes",
        "2",
        "--spare",
        "0.2",
        "--distribution",
        "zoned:90/10:10/90",
        "--separate",
        "hint-gc",
    ]);
    assert!(out.contains("writes zoned:90/10:10/90, hot/cold separation hint, GC copies by temperature"), "{out}");
    assert!(out.contains("(90.") && out.contains("LRW (FIFO) model for this skew"), "{out}");
    fails(&["sim", "waf", "--distribution", "zipf:0.9", "--separate", "hint"], "--separate hint needs a zoned");
    fails(&["sim", "waf", "--distribution", "zipf:1"], "--distribution 'zipf:1'");
    fails(&["sim", "waf", "--separate", "warm"], "--separate 'warm'");
}

#[test]
fn life_runs_the_jesd219_enterprise_workload_against_uniform_writes() {
    let out = ok(&["life", "--target", "sim:toy", "--usage", "jesd219-enterprise", "--drive-writes", "0.5"]);
    assert!(out.contains("jesd219-enterprise: 0.50 drive writes after the fill"), "{out}");
    assert!(out.contains("uniform-4k: 0.50 drive writes after the fill"), "{out}");
    assert!(out.contains("projected TBW"), "{out}");
    fails(&["life", "--target", "sim:toy", "--usage", "jesd219-client"], "--trace FILE");
}

#[test]
fn trace_summary_has_the_mix_ratio_and_skew() {
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/../flashlab-life/tests/traces/small.msr.csv");
    let out = ok(&["life", "--target", "sim:toy", "--trace", trace]);
    assert!(out.contains("write sizes (size/% of writes)") && out.contains("write skew over"), "{out}");
    assert!(out.contains("reads ") && out.contains("% of requests"), "{out}");
}
