//! fio job files (flashlab-jobs): parse arbitrary text; also the size and time units alone.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = flashlab_jobs::parse_jobfile("fuzz.fio", &text);
    let _ = flashlab_jobs::units::parse_size(&text, 1024);
    let _ = flashlab_jobs::units::parse_size_spec(&text, 1000);
    let _ = flashlab_jobs::units::parse_time_ns(&text, flashlab_jobs::units::TimeUnit::Microseconds);
});
