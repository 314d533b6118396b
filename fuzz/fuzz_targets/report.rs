//! Results documents read by `flashlab report`: render arbitrary JSON text into the HTML
//! report (charts with linear and log axes included).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = flashlab_report::render_report(&[("fuzz.json".to_string(), text.into_owned())]);
});
