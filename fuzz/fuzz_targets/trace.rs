//! Block traces (blkparse text, fio iolog, MSR Cambridge CSV): parse arbitrary text in every
//! format and the detected one.
#![no_main]
use flashlab_life::traces::{parse, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse("fuzz.trace", &text, Format::detect(&text));
    for f in ["blkparse", "iolog", "msr"] {
        let _ = parse("fuzz.trace", &text, Format::parse(f).unwrap());
    }
});
