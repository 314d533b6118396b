//! `Device::submit_after`: a request the host issues only once the requests it depends on
//! have completed (jbd2's commit block after its log blocks), while the caller's clock stays
//! where it was. It reaches the device at its issue time plus the host's submit cost, so on an
//! idle device it starts a new busy period; and requests submitted afterwards at the earlier
//! clock are still accepted, queued behind it on a one-command interface.

use flashsim::{builtin, Device, Op, Profile, Request, MAP_UNIT};

fn nexus7() -> Profile {
    Profile::from_toml("nexus7-2012.toml", builtin::text("nexus7-2012").expect("built-in")).unwrap()
}

#[test]
fn a_dependent_request_arrives_at_its_issue_time_and_the_clock_stays() {
    let p = nexus7();
    let submit_ns = (p.host.host_submit_us * 1000.0) as u64;
    let mut dev = Device::new(&p, 1);
    let first = dev.submit(0, &Request::new(Op::Write, 0, 3 * MAP_UNIT)).unwrap();
    let issued = first.done;
    let commit = dev.submit_after(0, issued, &Request::new(Op::Write, 3 * MAP_UNIT, MAP_UNIT)).unwrap();
    assert_eq!(commit.submitted, issued);
    assert!(commit.device_start >= issued + submit_ns, "{commit:?} issued at {issued}");
    // The device was idle between the two: a gap of the host's round trip.
    assert!(commit.device_start > first.device_done, "{first:?} then {commit:?}");
    // The caller's clock is still 0: another request at 0 is accepted and, on the eMMC's one
    // command at a time, served after the commit block.
    let other = dev.submit(0, &Request::new(Op::Write, 100 * MAP_UNIT, MAP_UNIT)).unwrap();
    assert!(other.device_start >= commit.device_done, "{other:?} after {commit:?}");
    // The clock does not go back.
    assert!(dev.submit_after(0, 0, &Request::new(Op::Write, 0, MAP_UNIT)).is_ok());
    dev.check_invariants().unwrap();
}
