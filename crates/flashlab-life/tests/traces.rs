//! Acceptance 3 of issue 10: trace replay on small hand-written traces in each format (written
//! from the formats' documentation: blkparse(1)'s default output, fio's HOWTO "Trace file
//! format" v2/v3, the MSR Cambridge README), and malformed lines named in errors.

use flashlab_life::traces::replay::{replay, ReplayConfig};
use flashlab_life::traces::{parse, Format};
use flashsim::{Op, Profile};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/traces/");

fn toy() -> Profile {
    Profile::from_toml("toy", flashlab_lab::profiles::builtin("toy").unwrap()).unwrap()
}

fn load(name: &str) -> (String, Format) {
    let text = std::fs::read_to_string(format!("{DIR}{name}")).unwrap();
    let f = Format::detect(&text);
    (text, f)
}

fn cfg(compress: bool) -> ReplayConfig {
    ReplayConfig { compress_time: compress, sample_ns: 250_000_000, probe_every: 0, seed: 1, pe_cycles: None }
}

#[test]
fn each_format_replays() {
    // (file, format, bytes written, bytes the device holds valid at the end, last request at)
    let cases = [
        ("small.blkparse.txt", Format::Blkparse, 528_384, 0, 999_991_000),
        ("small.iolog2", Format::Iolog, 528_384, 0, 1_000_000_000),
        ("small.iolog3", Format::Iolog, 528_384, 0, 999_990_000),
        ("small.msr.csv", Format::Msr, 532_480, 528_384, 1_000_000_000),
    ];
    for (file, format, written, valid, last_t) in cases {
        let (text, detected) = load(file);
        assert_eq!(detected, format, "{file}");
        let ops = parse(file, &text, format).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ops.last().unwrap().t_ns, last_t, "{file}: timestamps");
        assert!(ops.iter().any(|o| o.op == Op::Read), "{file} has a read");
        for compress in [false, true] {
            let (r, stats) = replay(&toy(), file, &ops, &cfg(compress), |_| {}).unwrap();
            assert_eq!(stats.requests as usize, ops.len());
            assert_eq!(r.app.write_bytes, written, "{file}");
            let last = r.last();
            assert_eq!(last.host_write_bytes, written, "{file}: the device saw the trace's writes");
            assert_eq!(last.device_valid_bytes, valid, "{file}: valid data after the trace's trims");
            assert!(last.probe.is_some(), "the last sample has a probe");
            if compress {
                assert!(r.virtual_s < 0.1, "{file}: compressed replay took {} s of virtual time", r.virtual_s);
            } else {
                assert!(r.virtual_s >= last_t as f64 / 1e9, "{file}: honoured timestamps, {} s", r.virtual_s);
                assert!(r.samples.len() >= 4, "{file}: a sample every 250 ms of trace time");
            }
        }
    }
}

#[test]
fn offsets_past_the_end_fold_into_the_device() {
    let text = "1000,h,0,Write,1099511627776,4096,1\n2000,h,0,Write,0,8192,1\n";
    let ops = parse("big.csv", text, Format::Msr).unwrap();
    let (r, stats) = replay(&toy(), "big.csv", &ops, &cfg(false), |_| {}).unwrap();
    assert_eq!(stats.folded, 1);
    assert_eq!(r.last().host_write_bytes, 12_288);
}

#[test]
fn malformed_lines_are_named() {
    let cases = [
        (
            "small.blkparse.txt",
            6,
            "  8,0    1        6     0.001000000  1201  Q  WS 2056 + 1O24 [cp]",
            "sector count '1O24'",
        ),
        ("small.iolog2", 5, "/dev/sdb write 1052672", "fields"),
        ("small.iolog3", 6, "10010 /dev/sdb fsync 0 0", "action 'fsync'"),
        ("small.msr.csv", 3, "128166372005000000,wdev,0,Read,1048576,131072", "6 fields"),
    ];
    for (file, line, bad, says) in cases {
        let (text, format) = load(file);
        let mut lines: Vec<&str> = text.lines().collect();
        lines[line - 1] = bad;
        let e = parse(file, &lines.join("\n"), format).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{file}:{line}: ")), "{e}");
        assert!(e.contains(says), "{e}");
    }
}
