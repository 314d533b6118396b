//! Aging protocols (flashlab-lab): parse arbitrary TOML.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = flashlab_lab::protocol::Protocol::from_toml("fuzz.toml", &text);
    let _ = flashlab_lab::protocol::FileSizes::parse(&text, 1);
});
