//! Mount tables: /proc/self/mountinfo and /proc/mounts as the doctor and the real-device
//! checks read them, plus the doctor's one-file sysfs/df/getprop/cron parsers.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let p = flashlab_doctor::mounts::parse_mountinfo(&text);
    for e in &p.entries {
        let _ = flashlab_doctor::mounts::kind(e);
        let _ = e.options();
    }
    let _ = flashlab_doctor::mounts::parse_mounts(&text);
    let _ = flashlab_doctor::block::parse_life_time(&text);
    let _ = flashlab_doctor::block::parse_pre_eol(&text);
    let _ = flashlab_doctor::block::parse_scheduler(&text);
    let _ = flashlab_doctor::block::split_partition(&text);
    let _ = flashlab_doctor::usage::parse_df(&text);
    let _ = flashlab_doctor::trim::parse_props(&text);
    let _ = flashlab_doctor::trim::fstrim_entries("crontab", &text, false);
});
