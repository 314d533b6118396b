//! Program time by NAND page type (`nand.t_prog_page_us`) and the host stack's spread
//! (`host.host_jitter`): both change when requests complete, not what the device stores.

use flashsim::{builtin, Device, Ns, Op, Profile, Request};

fn toy_with(extra_nand: &str, extra_host: &str) -> Result<Profile, flashsim::ProfileError> {
    let mut text = builtin::TOY.replace("t_prog_us = 600\n", &format!("t_prog_us = 600\n{extra_nand}"));
    text = text.replace("[host]\n", &format!("[host]\n{extra_host}"));
    Profile::from_toml("toy-pages.toml", &text)
}

/// Flush after each 4 KiB write on a fresh device: each flush pads and programs one page, the
/// next page of the next die's open block; returns the flushes' device times.
fn flush_times(p: &Profile, n: usize) -> Vec<Ns> {
    let mut d = Device::new(p, 1);
    let mut t = 0;
    let mut v = Vec::new();
    for i in 0..n as u64 {
        let w = d.submit(t, &Request::new(Op::Write, i * 4096, 4096)).unwrap();
        let f = d.submit(w.done, &Request::new(Op::Flush, 0, 0)).unwrap();
        v.push(f.device_done - f.device_start);
        t = f.done;
    }
    v
}

#[test]
fn lower_and_upper_pages_program_at_their_own_speed() {
    let plain = toy_with("", "").unwrap();
    let typed = toy_with("t_prog_page_us = [300, 900]\n", "").unwrap();
    // Toy has 4 dies: flushes 0-3 program page 0 (lower) of each die, 4-7 page 1 (upper), ...
    let a = flush_times(&plain, 16);
    let b = flush_times(&typed, 16);
    assert!(a.windows(2).all(|w| w[0].abs_diff(w[1]) < 1000), "one program time: {a:?}");
    for (i, &ns) in b.iter().enumerate() {
        let upper = (i / 4) % 2 == 1;
        let want = if upper { 900_000 } else { 300_000 };
        assert!(ns >= want && ns < want + 100_000, "flush {i} ({}): {ns} ns", if upper { "upper" } else { "lower" });
    }
    // The mean is the plain part's: sequential throughput is unchanged.
    let mean = |v: &[Ns]| v.iter().sum::<Ns>() as f64 / v.len() as f64;
    assert!((mean(&a) - mean(&b)).abs() < 0.01 * mean(&a), "{} vs {}", mean(&a), mean(&b));
}

#[test]
fn page_types_are_checked() {
    let e = toy_with("t_prog_page_us = [300, 900, 600]\n", "").unwrap_err();
    assert!(e.to_string().contains("one program time per bit"), "{e}");
    let e = toy_with("t_prog_page_us = [300, 1000]\n", "").unwrap_err();
    assert!(e.to_string().contains("mean"), "{e}");
    let e = toy_with("t_prog_page_us = [0, 1200]\n", "").unwrap_err();
    assert!(e.to_string().contains("(0, 1e9]"), "{e}");
}

/// QD1 4 KiB reads of unmapped units (no NAND): latency = host costs + command + bus.
fn read_latencies(p: &Profile, seed: u64, n: u64) -> Vec<Ns> {
    let mut d = Device::new(p, seed);
    let mut t = 0;
    (0..n)
        .map(|i| {
            let c = d.submit(t, &Request::new(Op::Read, i * 4096, 4096)).unwrap();
            t = c.done;
            c.latency()
        })
        .collect()
}

#[test]
fn host_jitter_spreads_the_host_costs_around_their_median() {
    let plain = toy_with("", "").unwrap();
    let jitter = "host_jitter = [[0.0, 0.5], [0.5, 1.0], [0.9, 2.0], [1.0, 4.0]]\n";
    let spread = toy_with("", jitter).unwrap();
    let flat = read_latencies(&plain, 1, 2000);
    let mut v = read_latencies(&spread, 1, 2000);
    assert!(flat.windows(2).all(|w| w[0] == w[1]), "no spread without the table");
    let host = plain.host.host_submit_us + plain.host.host_complete_us;
    let base = flat[0] as f64 - host * 1000.0;
    // The same seed draws the same; another seed does not.
    assert_eq!(v, read_latencies(&spread, 1, 2000));
    assert_ne!(v, read_latencies(&spread, 2, 2000));
    v.sort_unstable();
    let factor = |q: f64| (v[(q * v.len() as f64) as usize] as f64 - base) / (host * 1000.0);
    assert!((factor(0.5) - 1.0).abs() < 0.06, "median factor {}", factor(0.5));
    assert!((factor(0.9) - 2.0).abs() < 0.15, "p90 factor {}", factor(0.9));
    assert!(factor(0.01) >= 0.5 - 1e-3 && factor(0.999) <= 4.0 + 1e-3);
    let e = toy_with("", "host_jitter = [[0.5, 1.0], [0.4, 2.0]]\n").unwrap_err();
    assert!(e.to_string().contains("rising"), "{e}");
}
