//! Flexible Data Placement (`[fdp]`): each write's placement ID picks its reclaim unit
//! handle; the per-handle statistics add up to the device's counters; persistently isolated
//! handles never share a block with other data (the FTL's invariant check, run after every
//! phase, looks at every block); reads return the last data written; bad `[fdp]` input names
//! its field.

mod common;

use flashsim::{Device, FdpConfig, Isolation, Op, Profile, Request, RequestError, MAP_UNIT};

/// The toy device with `handles` FDP handles of `isolation` (one value for all, or one each),
/// with the spare its open reclaim units need.
fn fdp_toy(handles: u32, isolation: Vec<Isolation>) -> Profile {
    let mut p = common::toy();
    p.ftl.host_streams = handles;
    p.ftl.spare_factor = 0.2;
    p.ftl.bg_gc_target_free_blocks = 4;
    p.fdp = Some(FdpConfig { reclaim_groups: 1, handles, isolation });
    p.validate("toy with fdp").unwrap();
    p
}

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Fill, then overwrite: handle h takes its own region, hot handles a small one; with trims
/// and flushes. Checks every read against the last write and the device's invariants (FDP's
/// isolation check among them) as it goes. Returns the device.
fn run(p: &Profile, seed: u64, passes: u64) -> Device {
    let mut dev = Device::new(p, seed);
    dev.track_content();
    dev.set_check_every(None);
    let handles = p.fdp.as_ref().unwrap().handles as u64;
    let units = dev.logical_bytes() / MAP_UNIT;
    let region = units / handles;
    let mut expect = vec![None; units as usize];
    let mut now = 0;
    let mut x = seed | 1;
    let mut tag = 0;
    for i in 0..units * passes {
        let r = xorshift(&mut x);
        // Handle 0 rewrites a tenth of its region; the others their whole region.
        let h = if i < units { i / region % handles } else { (r >> 40) % handles };
        let span = if h == 0 { region / 10 } else { region };
        let lpn = if i < units { i.min(units - 1) } else { h * region + (r >> 8) % span };
        if i >= units && r.is_multiple_of(97) {
            let t = Request::new(Op::Trim, lpn * MAP_UNIT, MAP_UNIT);
            now = dev.submit(now, &t).unwrap().done;
            expect[lpn as usize] = None;
            continue;
        }
        if r.is_multiple_of(501) {
            now = dev.submit(now, &Request::new(Op::Flush, 0, 0)).unwrap().done;
        }
        tag += 1;
        let w = Request { op: Op::Write, offset: lpn * MAP_UNIT, len: MAP_UNIT, stream: h as u32, tag };
        now = dev.submit(now, &w).unwrap().done;
        expect[lpn as usize] = Some(tag);
        if i % (units / 2) == 0 {
            dev.check_invariants().unwrap();
        }
    }
    dev.check_invariants().unwrap();
    for (lpn, e) in expect.iter().enumerate() {
        assert_eq!(dev.peek(lpn as u32), *e, "lpn {lpn}");
    }
    dev
}

/// The per-handle figures add up to the device's: host bytes to the 4 KiB units the host
/// wrote, media bytes to every unit programmed (this profile has no map cache or SLC cache,
/// whose pages no handle owns).
fn assert_laws(dev: &Device) {
    let s = dev.fdp_stats().expect("an FDP device reports");
    let c = dev.counters();
    assert_eq!(s.host_bytes(), c.host_units_written * MAP_UNIT, "host bytes over the handles");
    assert_eq!(s.media_bytes(), c.nand_units_programmed * MAP_UNIT, "media bytes over the handles");
    assert!(c.gc_units_copied > 0, "the run must reach GC for the law to mean something");
    for h in &s.handles {
        assert!(h.media_bytes >= h.host_bytes.saturating_sub(c.buffer_coalesced_units * MAP_UNIT));
        assert!(h.ru_remaining_bytes <= u64::from(h.open_rus) * s.ru_bytes);
    }
}

#[test]
fn per_handle_statistics_add_up_persistently_isolated() {
    let dev = run(&fdp_toy(4, vec![Isolation::PersistentlyIsolated]), 1, 4);
    assert_laws(&dev);
}

#[test]
fn per_handle_statistics_add_up_initially_isolated() {
    let dev = run(&fdp_toy(4, vec![Isolation::InitiallyIsolated]), 2, 4);
    assert_laws(&dev);
}

#[test]
fn mixed_isolation_keeps_the_persistent_handles_apart() {
    let iso = vec![
        Isolation::PersistentlyIsolated,
        Isolation::InitiallyIsolated,
        Isolation::InitiallyIsolated,
        Isolation::PersistentlyIsolated,
    ];
    let dev = run(&fdp_toy(4, iso), 3, 4);
    assert_laws(&dev);
    let s = dev.fdp_stats().unwrap();
    assert_eq!(s.handles[0].isolation, Isolation::PersistentlyIsolated);
    assert_eq!(s.handles[1].isolation, Isolation::InitiallyIsolated);
}

/// The hot handle's data, kept apart from the cold handles' in GC too, costs less there:
/// with persistent isolation the cold handles copy less than with shared GC reclaim units.
#[test]
fn persistent_isolation_lowers_the_cold_handles_waf() {
    let waf = |iso| {
        let s = run(&fdp_toy(4, vec![iso]), 5, 5).fdp_stats().unwrap();
        let cold: (u64, u64) = s.handles[1..].iter().fold((0, 0), |(h, m), x| (h + x.host_bytes, m + x.media_bytes));
        cold.1 as f64 / cold.0 as f64
    };
    let (initially, persistently) = (waf(Isolation::InitiallyIsolated), waf(Isolation::PersistentlyIsolated));
    assert!(persistently > 1.0 && initially > 1.0, "{initially} {persistently}");
    assert!(persistently <= initially * 1.02, "initially {initially}, persistently {persistently}");
}

#[test]
fn the_placement_id_selects_the_handle() {
    let p = fdp_toy(3, vec![Isolation::InitiallyIsolated]);
    let mut dev = Device::new(&p, 1);
    let upp = u64::from(p.units_per_page());
    let mut now = 0;
    // Handle 1: one whole program unit, then one unit more; handle 2: one unit.
    for (lpn, stream) in (0..upp + 1).map(|l| (l, 1)).chain([(upp + 1, 2)]) {
        let r = Request { stream, ..Request::new(Op::Write, lpn * MAP_UNIT, MAP_UNIT) };
        now = dev.submit(now, &r).unwrap().done;
    }
    let s = dev.fdp_stats().unwrap();
    let host: Vec<u64> = s.handles.iter().map(|h| h.host_bytes / MAP_UNIT).collect();
    assert_eq!(host, [0, upp + 1, 1]);
    // Handle 1 programmed one page: one RU open on one die, a page of it used.
    assert_eq!(s.handles[1].open_rus, 1);
    assert_eq!(s.handles[1].ru_remaining_bytes, s.ru_bytes - upp * MAP_UNIT);
    assert_eq!(s.handles[1].media_bytes, upp * MAP_UNIT);
    assert_eq!((s.handles[0].open_rus, s.handles[2].open_rus), (0, 0));
    assert_eq!(s.ru_bytes, u64::from(p.nand.pages_per_block) * upp * MAP_UNIT);
    // A placement ID past the handles is refused, changing nothing.
    let bad = Request { stream: 3, ..Request::new(Op::Write, 0, MAP_UNIT) };
    assert_eq!(dev.submit(now, &bad).unwrap_err(), RequestError::BadStream { stream: 3, streams: 3 });
    assert_eq!(dev.fdp_stats().unwrap(), s);
}

/// Rewriting a unit still in the buffer through another handle moves it to that handle's RU.
#[test]
fn a_rewrite_through_another_handle_leaves_the_old_page() {
    let p = fdp_toy(2, vec![Isolation::PersistentlyIsolated]);
    let mut dev = Device::new(&p, 1);
    dev.track_content();
    let a = Request { stream: 0, tag: 1, ..Request::new(Op::Write, 0, MAP_UNIT) };
    let b = Request { stream: 1, tag: 2, ..Request::new(Op::Write, 0, MAP_UNIT) };
    let now = dev.submit(0, &a).unwrap().done;
    let now = dev.submit(now, &b).unwrap().done;
    assert_eq!(dev.peek(0), Some(2));
    assert_eq!(dev.counters().buffer_coalesced_units, 0, "not coalesced across handles");
    dev.submit(now, &Request::new(Op::Flush, 0, 0)).unwrap();
    dev.check_invariants().unwrap();
    let s = dev.fdp_stats().unwrap();
    let upp = u64::from(p.units_per_page()) * MAP_UNIT;
    assert_eq!((s.handles[0].media_bytes, s.handles[1].media_bytes), (upp, upp), "each handle padded its page");
}

#[test]
fn a_device_without_fdp_reports_none() {
    assert!(Device::new(&common::toy(), 1).fdp_stats().is_none());
}

/// The built-in twin parses, has FDP, and differs from its conventional twin only there.
#[test]
fn the_builtin_twin_is_nvme_gen3_plus_fdp() {
    let fdp = Profile::from_toml("nvme-gen3-fdp", flashsim::builtin::text("nvme-gen3-fdp").unwrap()).unwrap();
    let conv = Profile::from_toml("nvme-gen3", flashsim::builtin::text("nvme-gen3").unwrap()).unwrap();
    let c = fdp.fdp.as_ref().unwrap();
    assert_eq!(fdp.ftl.host_streams, c.handles);
    assert_eq!(format!("{:?}", fdp.nand), format!("{:?}", conv.nand));
    assert_eq!(format!("{:?}", fdp.host), format!("{:?}", conv.host));
    let mut ftl = fdp.ftl.clone();
    ftl.host_streams = 1;
    assert_eq!(format!("{ftl:?}"), format!("{:?}", conv.ftl));
}

#[test]
fn bad_fdp_fields_are_named() {
    let base = flashsim::builtin::TOY.replace("spare_factor = 0.10", "spare_factor = 0.2");
    let with = |fdp: &str, ftl_extra: &str| {
        let text = base
            .replace("[host]", &format!("[fdp]\n{fdp}\n\n[host]"))
            .replace("separate_gc_frontier = true", &format!("separate_gc_frontier = true\n{ftl_extra}"));
        Profile::from_toml("t.toml", &text).map(|_| ()).map_err(|e| e.to_string())
    };
    let cases: &[(&str, &str, &str)] = &[
        ("handles = 2\nisolation = \"initially-isolated\"\nreclaim_groups = 2", "", "fdp.reclaim_groups"),
        ("handles = 0\nisolation = \"initially-isolated\"", "", "fdp.handles"),
        ("handles = 9\nisolation = \"initially-isolated\"", "", "fdp.handles"),
        ("handles = 2\nisolation = \"sometimes\"", "", "isolation"),
        ("handles = 2\nisolation = 3", "", "isolation"),
        ("handles = 3\nisolation = [\"initially-isolated\", \"persistently-isolated\"]", "", "fdp.isolation"),
        ("handles = 2", "", "isolation"),
        ("handles = 2\nisolation = \"initially-isolated\"\nruh = 1", "", "ruh"),
    ];
    for (fdp, extra, field) in cases {
        let e = with(fdp, extra).unwrap_err();
        assert!(e.contains(field), "{fdp}: {e}");
    }
    // host_streams left at 1 takes the handles; another value must agree.
    let e = with("handles = 2\nisolation = \"initially-isolated\"", "").map(|_| ());
    assert!(e.is_ok(), "{e:?}");
    let text = base
        .replace("host_streams = 1", "host_streams = 3")
        .replace("[host]", "[fdp]\nhandles = 2\nisolation = \"initially-isolated\"\n\n[host]");
    let e = Profile::from_toml("t.toml", &text).unwrap_err().to_string();
    assert!(e.contains("ftl.host_streams") && e.contains("fdp.handles"), "{e}");
    let text = base
        .replace("separate_gc_frontier = true", "separate_gc_frontier = false")
        .replace("[host]", "[fdp]\nhandles = 2\nisolation = \"initially-isolated\"\n\n[host]");
    let e = Profile::from_toml("t.toml", &text).unwrap_err().to_string();
    assert!(e.contains("ftl.separate_gc_frontier"), "{e}");
    let text = base
        .replace("[ftl]", "[ftl]\nmapping = \"hybrid\"\nlog_blocks = 4")
        .replace("[host]", "[fdp]\nhandles = 1\nisolation = \"initially-isolated\"\n\n[host]");
    let e = Profile::from_toml("t.toml", &text).unwrap_err().to_string();
    assert!(e.contains("field 'fdp'") && e.contains("page-mapped"), "{e}");
}
