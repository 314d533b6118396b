//! The bulk sequential fill (`Device::map_all_sequential`) through the FTL trait, for both FTL
//! kinds: on a new device it leaves every logical unit mapped with consistent tables and no
//! counters; on a device that holds data it refuses with `Error::NotNew` and changes nothing.

mod common;

use flashsim::{Counters, Device, Error, MappingKind, Op, Profile, Request, MAP_UNIT};

fn kinds() -> Vec<(&'static str, Profile)> {
    let page = common::toy();
    let mut hybrid = common::toy();
    hybrid.ftl.mapping = MappingKind::Hybrid;
    hybrid.ftl.log_blocks = 2;
    vec![("page", page), ("hybrid", hybrid)]
}

#[test]
fn a_new_device_is_filled_and_a_used_one_refused() {
    for (kind, p) in kinds() {
        let mut dev = Device::new(&p, 1);
        dev.map_all_sequential().unwrap_or_else(|e| panic!("{kind}: {e}"));
        dev.check_invariants().unwrap_or_else(|e| panic!("{kind}: {e}"));
        let s = dev.state();
        assert_eq!(s.valid_units, s.logical_units, "{kind}: every logical unit mapped once");
        assert_eq!(dev.counters(), Counters::default(), "{kind}: the fill is history, not counted");
        assert_eq!(dev.map_all_sequential(), Err(Error::NotNew), "{kind}: a second fill");

        // One write on a new device is enough to refuse, and the refusal changes nothing.
        let mut used = Device::new(&p, 1);
        used.submit(0, &Request::new(Op::Write, 7 * MAP_UNIT, MAP_UNIT)).unwrap();
        let before = used.state();
        let e = used.map_all_sequential().unwrap_err();
        assert_eq!(e, Error::NotNew, "{kind}");
        assert!(e.to_string().contains("not new"), "{kind}: {e}");
        assert_eq!(used.state(), before, "{kind}");
        used.check_invariants().unwrap_or_else(|e| panic!("{kind}: {e}"));
    }
}

#[test]
fn reset_counters_zeroes_what_a_run_counted() {
    for (kind, p) in kinds() {
        let mut dev = Device::new(&p, 1);
        dev.submit(0, &Request::new(Op::Write, 0, 64 * 1024)).unwrap();
        assert_eq!(dev.counters().host_writes, 1, "{kind}");
        dev.reset_counters();
        assert_eq!(dev.counters(), Counters::default(), "{kind}");
    }
}
