//! The invariant checks of a run that asks for them (issue 45, part 5; `flashlab age --check`):
//! a broken FTL state injected mid-run (cargo feature `fault-injection` of flashsim) is caught
//! by the device's periodic check and by the library entry point `age --check` uses
//! (`sim_run::run` with `check`), with an error naming the invariant, the die or unit and the
//! command; without the check, in a release build, the run goes on past it. And the checked
//! `age` protocol passes on every built-in profile (shrunk to a small geometry).

use flashlab_lab::precondition::Precondition;
use flashlab_lab::protocol::Protocol;
use flashlab_lab::shrink::{self, shrunk};
use flashlab_lab::sim_run::{self, SimProtocolRun};
use flashlab_simfs::FsConfig;
use flashsim::fault::{arm_next_device, Fault};
use flashsim::{Device, Op, Profile, Request, RequestError, MAP_UNIT};
use std::time::Instant;

fn toy() -> Profile {
    Profile::from_toml("toy.toml", flashsim::builtin::TOY).unwrap()
}

/// Random 4 KiB writes over the first `span` units, `n` of them, QD1; the first error.
fn random_writes(dev: &mut Device, span: u64, n: u64) -> Result<u64, RequestError> {
    let mut now = dev.busy_until();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        now = dev.submit(now, &Request::new(Op::Write, (x % span) * MAP_UNIT, MAP_UNIT))?.done;
    }
    Ok(now)
}

#[test]
fn a_die_valid_count_off_by_one_mid_run_is_caught_by_the_next_periodic_check() {
    let mut dev = Device::new(&toy(), 1);
    dev.set_check_every(Some(1000));
    dev.arm_fault(2500, Fault::DieValidOffByOne(1));
    let err = random_writes(&mut dev, 40_000, 10_000).unwrap_err();
    let RequestError::Invariant(v) = err else { panic!("not an invariant error: {err}") };
    // Injected after command 2500, caught by the check after command 3000.
    assert_eq!(v.command, 3000, "{v}");
    assert!(v.at > 0);
    let msg = v.to_string();
    assert!(msg.starts_with("device invariant broken after host command 3000 (virtual time "), "{msg}");
    assert!(msg.contains("die 1: valid count"), "{msg}");
}

#[test]
fn a_mapping_entry_pointing_at_a_page_with_no_valid_data_is_named() {
    let mut dev = Device::new(&toy(), 1);
    dev.set_check_every(None);
    random_writes(&mut dev, 20_000, 30_000).unwrap();
    dev.check_now().unwrap();
    // A unit the writes left on NAND (not in the controller's open pages).
    let lpn = (0..20_000).find(|&l| dev.inject_fault(Fault::ClearReverse(l))).expect("a unit on NAND");
    let v = dev.check_now().unwrap_err();
    assert_eq!(v.command, 30_000);
    assert!(v.what.starts_with(&format!("lpn {lpn} -> ppa ")) && v.what.ends_with(&format!("-> {}", u32::MAX)), "{v}");
    assert!(!dev.inject_fault(Fault::DieValidOffByOne(99)), "a die the device does not have");
}

#[test]
fn without_the_check_a_broken_device_runs_on() {
    let mut dev = Device::new(&toy(), 1);
    dev.set_check_every(None);
    assert_eq!(dev.check_every(), None);
    dev.arm_fault(100, Fault::DieValidOffByOne(0));
    random_writes(&mut dev, 40_000, 20_000).unwrap();
    assert_eq!(dev.commands(), 20_000);
    // The state is still broken: only a check tells.
    let v = dev.check_now().unwrap_err();
    assert!(v.what.starts_with("die 0: valid count"), "{v}");
}

/// The profile's own filesystem; make_ext4fs refuses a device this small, then mke2fs's ext4.
fn own_fs(profile: &Profile) -> FsConfig {
    FsConfig::from_profile(profile, &profile.name).unwrap_or_else(|_| FsConfig::parse("ext4").unwrap())
}

/// What `flashlab age --check` runs (`sim_run::run`), on `profile` with its own filesystem.
fn age_run(profile: &Profile, check: Option<u64>) -> Result<sim_run::SimProtocolOutcome, flashlab_lab::Error> {
    age_run_fs(profile, own_fs(profile), check)
}

/// [`age_run`] with filesystem `fs`.
fn age_run_fs(
    profile: &Profile,
    fs: FsConfig,
    check: Option<u64>,
) -> Result<sim_run::SimProtocolOutcome, flashlab_lab::Error> {
    let proto = Protocol::builtin("age-small").unwrap();
    let r = SimProtocolRun {
        target: "sim:test",
        profile,
        fs,
        protocol: &proto,
        seed: 1,
        rand_io: Some(1 << 20),
        span: Some(4 << 20),
        precondition: Precondition::Fresh,
        check,
        command: Default::default(),
    };
    sim_run::run(&r, &mut |_, _, _, _| {})
}

#[test]
fn age_check_stops_at_a_fault_injected_mid_run_with_what_broke_and_when() {
    arm_next_device(20_000, Fault::DieValidOffByOne(2));
    let err = age_run(&toy(), Some(5000)).err().expect("the check must catch the fault");
    let msg = err.to_string();
    assert!(msg.contains("device invariant broken after host command 20000 (virtual time "), "{msg}");
    assert!(msg.contains("die 2: valid count"), "{msg}");
}

#[test]
fn age_without_check_runs_on_in_release_and_the_debug_default_catches_it() {
    arm_next_device(20_000, Fault::DieValidOffByOne(2));
    let r = age_run(&toy(), None);
    if cfg!(debug_assertions) {
        // A debug build checks every `debug_check_every` commands by default (10 000 on toy).
        let msg = r.err().expect("the debug build's periodic check catches it").to_string();
        assert!(msg.contains("after host command 20000 ") && msg.contains("die 2: valid count"), "{msg}");
    } else {
        let out = r.expect("a release build without --check does not look");
        assert!(out.result.steps.len() > 3);
        let v = out.system.device().check_now().unwrap_err();
        assert!(v.what.starts_with("die 2: valid count"), "{v}");
    }
}

#[test]
fn age_check_passes_on_every_builtin_profile() {
    let start = Instant::now();
    let mut checked = Vec::new();
    let mut zoned = 0;
    for (name, text) in flashsim::builtin::BUILTIN {
        let t = Instant::now();
        let full = Profile::from_toml(&format!("{name}.toml"), text).unwrap();
        // A zoned device takes F2FS alone (it writes zones): the in-place models are refused up
        // front, naming it; F2FS runs with its checks where its zones can be sections, and is
        // refused with the reason where they cannot (ZNS's capacity below the zone size).
        if full.ftl.mapping == flashsim::MappingKind::Zoned {
            let msg = age_run_fs(&full, FsConfig::parse("plain").unwrap(), Some(1000))
                .err()
                .expect("age on a zoned device")
                .to_string();
            assert!(msg.contains(&format!("profile '{name}' is a zoned device")), "{msg}");
            let f2fs = FsConfig::parse("f2fs").unwrap();
            let small = [320u64 << 20, 640 << 20, 1280 << 20]
                .iter()
                .find_map(|&max| shrunk(&full, max))
                // No small geometry validates (ZNS's wide zones): F2FS's refusal of its zones
                // comes before any I/O on the full one.
                .unwrap_or_else(|| full.clone());
            match age_run_fs(&small, f2fs, Some(1000)) {
                Ok(out) => {
                    out.system.check_invariants().unwrap();
                    let c = out.system.fs().counters();
                    assert!(c.zone_resets > 0, "{name}: F2FS on zones reset none: {c:?}");
                    let commands = out.system.device().commands();
                    assert!(commands > 20_000, "{name} (f2fs on zones): only {commands} device commands");
                    eprintln!(
                        "{name} (f2fs on zones): {commands} commands, {} zone resets, {:.2} s",
                        c.zone_resets,
                        t.elapsed().as_secs_f64()
                    );
                }
                Err(e) => {
                    let msg = e.to_string();
                    assert!(
                        full.zoned.as_ref().is_some_and(|z| z.zone_capacity_mib.is_some()) && msg.contains("capacity"),
                        "{name}: {msg}"
                    );
                }
            }
            zoned += 1;
            continue;
        }
        // The smallest geometry on shrink's ladder that validates, from 320 MiB of NAND (the
        // protocol's fill leaves 48 MiB free); many dies with a large reserve each need more.
        let profile = [320u64 << 20, 640 << 20, 1280 << 20, 2560 << 20]
            .iter()
            .find_map(|&max| shrunk(&full, max))
            .unwrap_or_else(|| panic!("{name}: no geometry of at most 2.5 GiB validates"));
        // Its own filesystem, and each model it does not name.
        let mut labels = Vec::new();
        for fs in [
            own_fs(&profile),
            FsConfig::parse("plain").unwrap(),
            FsConfig::parse("ext4").unwrap(),
            FsConfig::parse("f2fs").unwrap(),
        ] {
            if labels.iter().any(|(k, _)| *k == fs.kind) {
                continue;
            }
            let label = fs.label();
            let out = age_run_fs(&profile, fs.clone(), Some(1000)).unwrap_or_else(|e| panic!("{name} ({label}): {e}"));
            let commands = out.system.device().commands();
            assert!(commands > 20_000, "{name} ({label}): only {commands} device commands, so few checks");
            out.system.check_invariants().unwrap();
            labels.push((fs.kind, format!("{label} {commands} commands")));
        }
        assert_eq!(labels.len(), 3, "{name}: plain, ext4 and f2fs");
        eprintln!(
            "{name}: {} MiB of NAND; {}; {:.2} s",
            shrink::nand_bytes(&profile) >> 20,
            labels.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>().join(", "),
            t.elapsed().as_secs_f64()
        );
        checked.push(*name);
    }
    assert_eq!(checked.len() + zoned, flashsim::builtin::BUILTIN.len());
    assert_eq!(zoned, 2, "zoned-ufs-4.0 and nvme-gen3-zns");
    eprintln!(
        "age-small --check=1000 on {} profiles x 3 filesystems: {:.1} s",
        checked.len(),
        start.elapsed().as_secs_f64()
    );
}
