//! Device profiles (flashsim): parse and validate arbitrary TOML, and build the simulated
//! device and filesystem configuration from what validates.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(p) = flashsim::Profile::from_toml("fuzz.toml", &text) {
        let n = &p.nand;
        let bytes =
            [n.channels, n.dies_per_channel, n.planes_per_die, n.blocks_per_plane, n.pages_per_block, n.page_kib]
                .iter()
                .fold(1024u64, |a, &x| a.saturating_mul(u64::from(x)));
        if let Ok(cfg) = flashlab_simfs::FsConfig::from_profile(&p, "fuzz.toml") {
            // A profile that validates must also build. Only devices up to 256 MiB: the
            // simulator's tables grow with capacity (that is by design, bounded by the
            // profile's own limit of 8 TiB), and the fuzzer runs with a 1 GiB memory limit.
            if bytes <= 256 << 20 {
                let _ = flashlab_lab::system::SimSystem::with_fs(&p, 1, cfg);
            }
        }
    }
    let _ = flashlab_simfs::FsConfig::parse(&text);
});
