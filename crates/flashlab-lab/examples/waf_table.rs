//! Prints the write-amplification table (greedy b=64/256, FIFO, random) next to the
//! analytical FIFO formula, for the docs. `cargo run --release -p flashlab-lab --example waf_table -- BLOCKS PASSES`
use flashlab_lab::experiments::waf::{run_waf, WafConfig};
use flashsim::{analytic, GcPolicy};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let blocks: u32 = args.get(1).map_or(8192, |s| s.parse().unwrap());
    let passes: f64 = args.get(2).map_or(8.0, |s| s.parse().unwrap());
    println!(
        "| Sf | FIFO formula | FIFO sim b=64 | greedy b=32 | greedy b=64 | greedy b=128 | greedy b=256 | random b=64 |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for sf in [0.07, 0.10, 0.20, 0.28] {
        let run = |policy, ppb| {
            let t = std::time::Instant::now();
            let r = run_waf(
                &WafConfig { spare: sf, pages_per_block: ppb, blocks, policy, passes, trimmed: 0.0, seed: 1 },
                |_| {},
            )
            .unwrap();
            eprintln!("sf {sf} {policy:?} b={ppb}: {:.3} in {:.1}s", r.write_amplification, t.elapsed().as_secs_f64());
            r.write_amplification
        };
        println!(
            "| {sf:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            analytic::waf_fifo(sf),
            run(GcPolicy::Fifo, 64),
            run(GcPolicy::Greedy, 32),
            run(GcPolicy::Greedy, 64),
            run(GcPolicy::Greedy, 128),
            run(GcPolicy::Greedy, 256),
            run(GcPolicy::Random, 64),
        );
    }
}
