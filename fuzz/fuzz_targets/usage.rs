//! life usage models, policies and durations (flashlab-life): parse arbitrary text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = flashlab_life::usage_toml::parse_usage("fuzz.toml", &text);
    let _ = flashlab_life::policy::Policy::parse(&text);
    let _ = flashlab_life::duration::parse_duration(&text);
});
