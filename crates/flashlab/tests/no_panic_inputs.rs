//! Issue 18: a bounded property-test pass over every parser and loader (the long runs are the
//! cargo-fuzz targets in fuzz/, docs/reliability.md): arbitrary text, and real inputs with
//! lines mutated, never panic, and every error names the input. Profiles, protocols, usage
//! models, traces in each format, mount tables and the doctor's one-file parsers, results
//! documents for `report`. (Job files: flashlab-jobs/tests/no_panic.rs.)

use proptest::prelude::*;

const TOY: &str = flashsim::builtin::TOY;
const PROTOCOL: &str = include_str!("../../flashlab-workload/protocols/age-small.toml");
const USAGE: &str = include_str!("../../flashlab-life/presets/light-phone.toml");
const MSR: &str = include_str!("../../flashlab-life/tests/traces/small.msr.csv");
const BLKPARSE: &str = include_str!("../../flashlab-life/tests/traces/small.blkparse.txt");
const IOLOG: &str = include_str!("../../flashlab-life/tests/traces/small.iolog3");
const MOUNTINFO: &str = include_str!("../../flashlab-doctor/tests/fixtures/ubuntu-sbc-emmc/proc/self/mountinfo");
const RESULTS: &str = include_str!("../../flashlab-report/tests/fixtures/wsat-toy.json");

/// Tokens a mutation puts in place of a value: huge, tiny, negative, non-finite, odd.
const TOKENS: &[&str] = &[
    "0",
    "-1",
    "18446744073709551615",
    "1e308",
    "-1e308",
    "5e-324",
    "nan",
    "inf",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "4294967296",
    "0.0",
    "true",
    "=",
    "[",
    "\"16e\"",
    "\"1y\"",
    "\u{0}",
    "999999999999999999999999",
];

/// `seed` with some lines changed: a value replaced by a token, a line dropped or doubled.
fn mutated(seed: &'static str) -> impl Strategy<Value = String> {
    let n = seed.lines().count().max(1);
    prop::collection::vec((0..n, 0u8..4, prop::sample::select(TOKENS)), 1..6).prop_map(move |muts| {
        let mut lines: Vec<String> = seed.lines().map(str::to_string).collect();
        for (i, kind, tok) in muts {
            let i = i % lines.len().max(1);
            if lines.is_empty() {
                break;
            }
            match kind {
                0 => {
                    // Replace what follows '=' or the last field.
                    let l = &lines[i];
                    lines[i] = match l.find('=') {
                        Some(k) => format!("{} {tok}", &l[..=k]),
                        None => match l.rfind([',', ' ']) {
                            Some(k) => format!("{}{tok}", &l[..=k]),
                            None => tok.to_string(),
                        },
                    };
                }
                1 => {
                    lines.remove(i);
                }
                2 => {
                    let l = lines[i].clone();
                    lines.insert(i, l);
                }
                _ => {
                    // Replace a number anywhere in the line.
                    let l = &lines[i];
                    if let Some(k) = l.find(|c: char| c.is_ascii_digit()) {
                        let end = l[k..].find(|c: char| !c.is_ascii_digit() && c != '.').map_or(l.len(), |e| k + e);
                        lines[i] = format!("{}{tok}{}", &l[..k], &l[end..]);
                    }
                }
            }
        }
        lines.join("\n")
    })
}

fn check_profile(text: &str) -> Result<(), TestCaseError> {
    if let Err(e) = flashsim::Profile::from_toml("p.toml", text) {
        prop_assert!(e.to_string().contains("p.toml"), "{e}");
    }
    Ok(())
}

fn check_trace(text: &str) -> Result<(), TestCaseError> {
    use flashlab_life::traces::{parse, Format};
    for f in [Format::Blkparse, Format::Iolog, Format::Msr, Format::detect(text)] {
        if let Err(e) = parse("t.trace", text, f) {
            prop_assert!(e.to_string().starts_with("t.trace"), "{e}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn profiles(text in prop_oneof![mutated(TOY), ".{0,200}"]) {
        check_profile(&text)?;
    }

    #[test]
    fn protocols(text in prop_oneof![mutated(PROTOCOL), ".{0,200}"]) {
        if let Err(e) = flashlab_lab::protocol::Protocol::from_toml("p.toml", &text) {
            prop_assert!(e.to_string().contains("p.toml"), "{e}");
        }
    }

    #[test]
    fn usage_models(text in prop_oneof![mutated(USAGE), ".{0,200}"]) {
        if let Err(e) = flashlab_life::usage_toml::parse_usage("u.toml", &text) {
            prop_assert!(e.to_string().contains("u.toml"), "{e}");
        }
    }

    #[test]
    fn traces(text in prop_oneof![mutated(MSR), mutated(BLKPARSE), mutated(IOLOG), ".{0,200}"]) {
        check_trace(&text)?;
    }

    #[test]
    fn mount_tables_and_sysfs_values(text in prop_oneof![mutated(MOUNTINFO), ".{0,300}"]) {
        let p = flashlab_doctor::mounts::parse_mountinfo(&text);
        for e in &p.entries {
            let _ = flashlab_doctor::mounts::kind(e);
        }
        let _ = flashlab_doctor::mounts::parse_mounts(&text);
        let _ = flashlab_doctor::block::parse_life_time(&text);
        let _ = flashlab_doctor::block::parse_pre_eol(&text);
        let _ = flashlab_doctor::block::parse_scheduler(&text);
        let _ = flashlab_doctor::usage::parse_df(&text);
        let _ = flashlab_doctor::trim::parse_props(&text);
    }

    #[test]
    fn results_documents(text in prop_oneof![mutated(RESULTS), ".{0,200}"]) {
        if let Err(e) = flashlab_report::render_report(&[("r.json".to_string(), text)]) {
            prop_assert!(e.to_string().contains("r.json"), "{e}");
        }
    }

    #[test]
    fn filesystem_specs_and_durations(s in ".{0,40}") {
        let _ = flashlab_simfs::FsConfig::parse(&s);
        let _ = flashlab_life::duration::parse_duration(&s);
        let _ = flashlab_life::policy::Policy::parse(&s);
        let _ = flashlab_lab::protocol::FileSizes::parse(&s, 1);
    }
}
