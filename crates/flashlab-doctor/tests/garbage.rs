//! Property tests: garbage mount tables, sysfs values and df output never crash the doctor,
//! and what cannot be read comes out as "unknown".

mod common;

use common::TreeBuilder;
use flashlab_doctor::{inspect, mounts, render_text, usage, Severity};
use proptest::prelude::*;

/// Pieces that look like mount-table fields, mixed with arbitrary text.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("-".to_string()),
        Just("/".to_string()),
        Just("/data".to_string()),
        Just("/dev/mmcblk0p1".to_string()),
        Just("/dev/block/dm-0".to_string()),
        Just("/dev/mapper/x".to_string()),
        Just("/dev/block/vold/public:179,1".to_string()),
        Just("/dev/fuse".to_string()),
        Just("/data/media".to_string()),
        Just("/storage/emulated".to_string()),
        Just("ext4".to_string()),
        Just("f2fs".to_string()),
        Just("fuse".to_string()),
        Just("sdcardfs".to_string()),
        Just("overlay".to_string()),
        Just("rw,discard,nobarrier,commit=0,data=journal".to_string()),
        Just("ro".to_string()),
        Just("upperdir=/data/x".to_string()),
        Just("179:1".to_string()),
        Just("253:0".to_string()),
        Just("\\040".to_string()),
        "[0-9]{1,3}",
        "[0-9]{1,4}:[0-9]{1,4}",
        "\\PC{0,12}",
        "/[a-z/]{0,10}",
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(token(), 0..14).prop_map(|v| v.join(" "))
}

fn table() -> impl Strategy<Value = String> {
    (prop::collection::vec(line(), 0..12), any::<bool>()).prop_map(|(l, nl)| {
        let mut s = l.join("\n");
        if nl {
            s.push('\n');
        }
        s
    })
}

/// Sysfs-ish values: plausible ones and garbage.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("1".to_string()),
        Just("179:0".to_string()),
        Just("179:1".to_string()),
        Just("253:0".to_string()),
        Just("none [mq-deadline]".to_string()),
        Just("write back".to_string()),
        Just("0x0B 0x0A".to_string()),
        Just("18446744073709551615".to_string()),
        Just("99999999999999999999999".to_string()),
        "\\PC{0,20}",
        "[0-9]{0,12}",
    ]
}

const DEVS: &[&str] = &["mmcblk0", "dm-0", "sda", "nvme0n1", "loop0", "zz"];
const FILES: &[&str] = &[
    "dev",
    "size",
    "queue/rotational",
    "queue/scheduler",
    "queue/write_cache",
    "queue/discard_max_bytes",
    "queue/discard_granularity",
    "device/type",
    "device/life_time",
    "device/pre_eol_info",
    "device/model",
    "dm/name",
    "mmcblk0p1/dev",
    "mmcblk0p1/partition",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn parsers_never_panic(text in table(), raw in "\\PC{0,200}") {
        for t in [&text, &raw] {
            for p in [mounts::parse_mountinfo(t), mounts::parse_mounts(t)] {
                for e in &p.entries {
                    prop_assert!(e.mount_point.starts_with('/'));
                    let _ = mounts::kind(e);
                    let _ = e.options();
                    let _ = e.read_only();
                }
            }
            let _ = usage::parse_df(t);
            let _ = flashlab_doctor::block::parse_scheduler(t);
            let _ = flashlab_doctor::block::parse_life_time(t);
            let _ = flashlab_doctor::block::split_partition(t);
            let _ = flashlab_doctor::block::class_from_name(t);
            let _ = flashlab_doctor::trim::fstrim_entries("/etc/crontab", t, true);
            let _ = flashlab_doctor::trim::parse_props(t);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn garbage_trees_give_a_report(
        mountinfo in table(),
        mounts_file in table(),
        df in table(),
        sys in prop::collection::vec((0..DEVS.len(), 0..FILES.len(), value()), 0..30),
        slaves in prop::collection::vec((0..DEVS.len(), 0..DEVS.len()), 0..4),
        use_mounts in any::<bool>(),
    ) {
        let t = TreeBuilder::new();
        if use_mounts {
            t.file("proc/mounts", &mounts_file);
        } else {
            t.file("proc/self/mountinfo", &mountinfo);
        }
        t.file("doctor/df.txt", &df);
        for (d, f, v) in &sys {
            let rel = if FILES[*f].starts_with("mmcblk0p1") { format!("sys/block/mmcblk0/{}", FILES[*f]) } else { format!("sys/block/{}/{}", DEVS[*d], FILES[*f]) };
            t.file(&rel, v);
        }
        // Slaves may form cycles (dm-0 over dm-0): the walk must stop.
        for (a, b) in &slaves {
            t.file(&format!("sys/block/{}/slaves/{}", DEVS[*a], DEVS[*b]), "");
        }
        let r = inspect(t.path());
        let text = render_text(&r, false);
        prop_assert!(text.starts_with("flashlab doctor"));
        let json = serde_json::to_string(&r).unwrap();
        prop_assert!(json.contains("\"schema\":1"));
        for fs in r.filesystems.iter().filter(|f| !f.read_only) {
            // Every writable filesystem is judged on usage and trim, known or not.
            prop_assert!(fs.findings.iter().any(|f| f.id.starts_with("usage-")), "{:?}", fs.findings);
            prop_assert!(
                fs.findings.iter().any(|f| matches!(f.id.as_str(), "trim-ok" | "no-trim" | "trim-unknown" | "discard-unsupported" | "discard-blocked")),
                "{:?}", fs.findings
            );
            if fs.usage.is_none() {
                prop_assert_eq!(r.finding(&fs.mount_point, "usage-unknown").map(|f| f.severity), Some(Severity::Unknown));
            }
            if fs.options.is_none() {
                prop_assert!(r.finding(&fs.mount_point, "options-unknown").is_some());
            }
        }
    }
}
