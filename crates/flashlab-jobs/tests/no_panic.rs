//! Property tests: no input, however malformed, makes the unit or job-file parsers panic.

use flashlab_jobs::{
    options, parse_jobfile, parse_jobfile_with_env, parse_size, parse_size_spec, parse_time_ns, TimeUnit,
};
use proptest::prelude::*;

/// Lines that look like job files: headers, known option names with odd values, comments.
fn jobfile_line() -> impl Strategy<Value = String> {
    let names: Vec<&'static str> = options::OPTIONS
        .iter()
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
        .chain(["include", "global", "bogus"])
        .collect();
    prop_oneof![
        "\\[[a-z\\[\\] -]{0,8}\\]?",
        Just("[global]".to_string()),
        (prop::sample::select(names.clone()), "[ =]{0,2}", "[0-9a-zA-Z%.:,${}()#;\\\\ -]{0,12}")
            .prop_map(|(n, eq, v)| format!("{n}{eq}{v}")),
        prop::sample::select(names).prop_map(str::to_string),
        "[#;].{0,10}",
        ".{0,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in ".{0,300}") {
        let _ = parse_jobfile("x.fio", &text);
        let _ = parse_jobfile_with_env("x.fio", &text, &|k| Some(k.to_string()));
    }

    #[test]
    fn jobfile_like_text_never_panics(lines in prop::collection::vec(jobfile_line(), 0..24), crlf in any::<bool>()) {
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        if let Err(e) = parse_jobfile("x.fio", &text) {
            // Every error names the file, and a line when it has one.
            prop_assert!(e.to_string().starts_with("x.fio:"));
        }
        let _ = parse_jobfile_with_env("x.fio", &text, &|k| (k.len() % 2 == 0).then(|| "4k".to_string()));
    }

    #[test]
    fn units_never_panic(s in "[0-9a-zA-Z%.x() +-]{0,16}|.{0,16}", kb in prop_oneof![Just(1000u32), Just(1024u32), any::<u32>()]) {
        let _ = parse_size(&s, kb);
        let _ = parse_size_spec(&s, kb);
        let _ = parse_time_ns(&s, TimeUnit::Seconds);
        let _ = parse_time_ns(&s, TimeUnit::Microseconds);
    }

    #[test]
    fn sizes_round_trip(n in 0u64..1_000_000, k in 0usize..5) {
        let suffix = ["", "k", "m", "g", "t"][k];
        let v = parse_size(&format!("{n}{suffix}"), 1024).unwrap();
        prop_assert_eq!(v, n << (10 * k));
    }
}
