//! The system stack of a simulated phone or board above its filesystem, as a profile's
//! `[system]` table names it: the shared-storage layer that app-visible storage
//! (`/storage/emulated/0` on Android) goes through, and the trim policy the system runs.
//! (The filesystem and its mount options, barriers included, are [`flashlab_simfs::FsConfig`].)
//!
//! ```toml
//! [system]
//! filesystem = "ext4"
//! shared_storage = "fuse"     # fuse, sdcardfs, esdfs or none (default none)
//! trim = "daily"              # none, discard, daily, android, fstrim:INTERVAL (default none)
//! ```
//!
//! **Shared-storage layers.** Android before 8.0 exposed `/data/media` to apps through the
//! `sdcard` daemon, a FUSE file system in user space: every request (and every fsync) crosses
//! the kernel's FUSE queue to the daemon, which repeats it on the lower filesystem and replies.
//! Vendors replaced it with in-kernel stacked file systems — Samsung's `sdcardfs` (later in
//! AOSP), Motorola's `esdfs` — that pass the call to the lower filesystem inside the kernel.
//! The model charges each request a fixed cost on the way in and on the way out:
//!
//! * `fuse`: the FUSE round trip as measured on this machine with flashlab's own FUSE server
//!   (`bench/fuse-cost.sh`: fio 4 KiB QD1 on `flashlab serve`'s device file on the zero-latency
//!   profile, minus the same on tmpfs: 11.5 µs), scaled to a 2016 phone core (×4: docs/fill.md
//!   and docs/breakdown.md say why).
//! * `sdcardfs`, `esdfs`: an in-kernel pass-through: one more VFS call, measured the same way
//!   on an overlayfs mount over tmpfs (this kernel has neither sdcardfs nor esdfs; overlayfs is
//!   the in-kernel stacking file system it has), scaled alike.
//! * `none`: nothing.
//!
//! The costs are constants here, like a profile's `host_submit_us`, measured once and
//! documented; `[system]` may override them with `shared_storage_submit_us` and
//! `shared_storage_complete_us`.

use crate::units::parse_duration_ns;
use crate::Error;
use flashsim::{Ns, Profile};
use serde::{Deserialize, Serialize};
use std::fmt;

/// An hour of virtual time, ns.
pub const HOUR: Ns = 3_600_000_000_000;
/// A day of virtual time, ns.
pub const DAY: Ns = 24 * HOUR;

/// A fixed cost each request pays crossing a layer: before it reaches the filesystem and
/// after the filesystem has completed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct LayerCost {
    /// Added on the way in (before the request reaches the filesystem), ns.
    pub submit_ns: Ns,
    /// Added on the way out (after the filesystem completes it), ns.
    pub complete_ns: Ns,
}

impl LayerCost {
    /// No layer.
    pub const ZERO: LayerCost = LayerCost { submit_ns: 0, complete_ns: 0 };

    /// The cost of a request's round trip through the layer, ns.
    pub fn total_ns(self) -> Ns {
        self.submit_ns + self.complete_ns
    }
}

/// The shared-storage layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SharedLayer {
    /// No layer: applications write to the filesystem directly.
    None,
    /// A FUSE daemon in user space (Android's `sdcard` before 8.0).
    Fuse,
    /// Samsung's in-kernel stacked file system (later in AOSP).
    Sdcardfs,
    /// Motorola's in-kernel stacked file system.
    Esdfs,
}

/// FUSE round trip per request on a 2016 phone core: this machine's measured 4 KiB QD1
/// round trip (`bench/fuse-cost.sh`: 11.5 µs over tmpfs's p50, docs/fill.md) times
/// [`PHONE_2016_CPU_SCALE`], split evenly between the request path (to the daemon) and the reply
/// path (back to the caller).
const FUSE_SUBMIT_NS: Ns = 23_000;
const FUSE_COMPLETE_NS: Ns = 23_000;
/// In-kernel pass-through: overlayfs over tmpfs measured 0.43 µs above tmpfs per 4 KiB write
/// here, times the scale factor: one more VFS call, no context switch.
const KERNEL_PASS_SUBMIT_NS: Ns = 1_000;
const KERNEL_PASS_COMPLETE_NS: Ns = 700;

/// How many times longer a 2016 phone core (Snapdragon 820/821 Kryo, 2.15 GHz) takes than this
/// machine's core for the same kernel code path. docs/breakdown.md gives the source and the
/// uncertainty.
const PHONE_2016_CPU_SCALE: f64 = 4.0;
/// This machine's FUSE round trip (`bench/fuse-cost.sh`), ns.
const FUSE_HERE_NS: f64 = 11_500.0;
// The FUSE costs above are this machine's round trip scaled to the phone core.
const _: () = assert!(FUSE_SUBMIT_NS + FUSE_COMPLETE_NS == (FUSE_HERE_NS * PHONE_2016_CPU_SCALE) as Ns);

impl SharedLayer {
    /// The names `parse` takes.
    pub const NAMES: [&'static str; 4] = ["none", "fuse", "sdcardfs", "esdfs"];

    /// `none`, `fuse`, `sdcardfs` or `esdfs`, any case.
    pub fn parse(s: &str) -> Result<SharedLayer, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(SharedLayer::None),
            "fuse" => Ok(SharedLayer::Fuse),
            "sdcardfs" => Ok(SharedLayer::Sdcardfs),
            "esdfs" => Ok(SharedLayer::Esdfs),
            other => Err(Error::UnknownName {
                what: "shared-storage layer",
                name: other.to_string(),
                expected: format!("one of: {}", Self::NAMES.join(", ")),
            }),
        }
    }

    /// The layer's name, as `parse` takes it.
    pub fn name(self) -> &'static str {
        match self {
            SharedLayer::None => "none",
            SharedLayer::Fuse => "fuse",
            SharedLayer::Sdcardfs => "sdcardfs",
            SharedLayer::Esdfs => "esdfs",
        }
    }

    /// The layer's default cost per request (see the module documentation).
    pub fn default_cost(self) -> LayerCost {
        match self {
            SharedLayer::None => LayerCost::ZERO,
            SharedLayer::Fuse => LayerCost { submit_ns: FUSE_SUBMIT_NS, complete_ns: FUSE_COMPLETE_NS },
            SharedLayer::Sdcardfs | SharedLayer::Esdfs => {
                LayerCost { submit_ns: KERNEL_PASS_SUBMIT_NS, complete_ns: KERNEL_PASS_COMPLETE_NS }
            }
        }
    }
}

impl fmt::Display for SharedLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// When the system trims the filesystem's free space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TrimPolicy {
    /// Never.
    None,
    /// Online discard: the filesystem trims what it frees (the `discard` mount option).
    Discard,
    /// fstrim every `interval_ns` of virtual time, whenever it falls due (a timer).
    Fstrim {
        /// Time between two fstrims, ns.
        interval_ns: Ns,
    },
    /// Android's idle maintenance: fstrim at most once a day, once the device has been idle
    /// (no application I/O) for an hour.
    Android,
}

impl TrimPolicy {
    /// `none`, `discard`, `daily` (= `fstrim:1d`), `weekly`, `android`, `fstrim[:INTERVAL]`.
    pub fn parse(s: &str) -> Result<TrimPolicy, Error> {
        let s = s.trim().to_ascii_lowercase();
        let unknown = |name: &str| Error::UnknownName {
            what: "trim policy",
            name: name.to_string(),
            expected: "none, discard, daily, weekly, android or fstrim:INTERVAL".into(),
        };
        let interval = |v: &str| -> Result<Ns, Error> {
            match v {
                "daily" => Ok(DAY),
                "weekly" => Ok(7 * DAY),
                v => parse_duration_ns(v)
                    .map_err(|e| Error::TrimInterval { value: v.to_string(), problem: e.to_string() })
                    .and_then(|n| {
                        if n == 0 {
                            Err(Error::TrimInterval {
                                value: v.to_string(),
                                problem: "the interval must be above zero".into(),
                            })
                        } else {
                            Ok(n)
                        }
                    }),
            }
        };
        match s.split_once(':') {
            None => match s.as_str() {
                "none" => Ok(TrimPolicy::None),
                "discard" => Ok(TrimPolicy::Discard),
                "daily" => Ok(TrimPolicy::Fstrim { interval_ns: DAY }),
                "weekly" | "fstrim" => Ok(TrimPolicy::Fstrim { interval_ns: 7 * DAY }),
                "android" => Ok(TrimPolicy::Android),
                other => Err(unknown(other)),
            },
            Some(("fstrim", v)) => Ok(TrimPolicy::Fstrim { interval_ns: interval(v)? }),
            Some(_) => Err(unknown(&s)),
        }
    }

    /// The policy as a document and the tables show it (`fstrim every 24h`).
    pub fn label(self) -> String {
        match self {
            TrimPolicy::None => "none".into(),
            TrimPolicy::Discard => "discard".into(),
            TrimPolicy::Fstrim { interval_ns } if interval_ns == DAY => "daily fstrim".into(),
            TrimPolicy::Fstrim { interval_ns } if interval_ns == 7 * DAY => "weekly fstrim".into(),
            TrimPolicy::Fstrim { interval_ns } => format!("fstrim every {:.3} h", interval_ns as f64 / HOUR as f64),
            TrimPolicy::Android => "android idle maintenance (daily fstrim when idle 1 h)".into(),
        }
    }

    /// Whether an fstrim runs in an idle period [`from`, `to`) given the last one (`None`:
    /// never), and at what time.
    pub(crate) fn fstrim_in_idle(self, from: Ns, to: Ns, last: Option<Ns>) -> Option<Ns> {
        let (interval, idle_before) = match self {
            TrimPolicy::Fstrim { interval_ns } => (interval_ns, 0),
            TrimPolicy::Android => (DAY, HOUR),
            TrimPolicy::None | TrimPolicy::Discard => return None,
        };
        // A timer fires at multiples of its interval since the start of the run; idle
        // maintenance may run once the device has been idle long enough and a day has passed.
        let due = match last {
            None => {
                if idle_before > 0 {
                    0
                } else {
                    interval
                }
            }
            Some(l) => l + interval,
        };
        let at = due.max(from + idle_before);
        (at < to).then_some(at)
    }
}

/// The stack of a profile's `[system]` table beyond the filesystem.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Stack {
    /// The shared-storage layer above the filesystem.
    pub shared_storage: SharedLayer,
    /// What a request pays crossing the shared-storage layer.
    pub shared_cost: LayerCost,
    /// When the system trims.
    pub trim: TrimPolicy,
    /// The system's CPU against this machine's core (`cpu_scale`): filesystem calls cost this
    /// machine's measured CPU times this (`flashlab_simfs::FsCpu`); `None`: no CPU time
    /// outside the device requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_scale: Option<f64>,
    /// The host CPU's exit from idle after a request it waited for alone (`idle_exit_us`), ns:
    /// the exit latency of the deepest idle state the system's governor allows while storage
    /// requests are outstanding ([`flashsim::Device::set_idle_exit`]); 0: none.
    #[serde(skip_serializing_if = "is_zero")]
    pub idle_exit_ns: Ns,
}

fn is_zero(v: &Ns) -> bool {
    *v == 0
}

impl Default for Stack {
    fn default() -> Stack {
        Stack {
            shared_storage: SharedLayer::None,
            shared_cost: LayerCost::ZERO,
            trim: TrimPolicy::None,
            cpu_scale: None,
            idle_exit_ns: 0,
        }
    }
}

#[derive(Debug, Deserialize)]
struct StackFields {
    #[serde(default)]
    shared_storage: Option<String>,
    #[serde(default)]
    shared_storage_submit_us: Option<f64>,
    #[serde(default)]
    shared_storage_complete_us: Option<f64>,
    #[serde(default)]
    trim: Option<String>,
    #[serde(default)]
    cpu_scale: Option<f64>,
    #[serde(default)]
    idle_exit_us: Option<f64>,
}

impl Stack {
    /// The stack of `profile`'s `[system]` table (none: no layer, no trim). Errors name
    /// `source` (the profile) and the field.
    pub fn from_profile(profile: &Profile, source: &str) -> Result<Stack, Error> {
        let Some(table) = &profile.system else {
            return Ok(Stack::default());
        };
        let bad = |field: Option<&str>, message: String| Error::ProfileTable {
            file: source.to_string(),
            table: Some("[system]".into()),
            field: field.map(str::to_string),
            message,
        };
        let t: StackFields = toml::Value::Table(table.clone())
            .try_into()
            .map_err(|e: toml::de::Error| bad(None, e.message().trim().to_string()))?;
        let shared_storage = match &t.shared_storage {
            Some(s) => SharedLayer::parse(s).map_err(|e| bad(Some("shared_storage"), e.to_string()))?,
            None => SharedLayer::None,
        };
        let mut shared_cost = shared_storage.default_cost();
        for (field, v, slot) in [
            ("shared_storage_submit_us", t.shared_storage_submit_us, &mut shared_cost.submit_ns),
            ("shared_storage_complete_us", t.shared_storage_complete_us, &mut shared_cost.complete_ns),
        ] {
            if let Some(us) = v {
                if !(0.0..=1e6).contains(&us) {
                    return Err(bad(Some(field), format!("{us} is not between 0 and 1000000 µs")));
                }
                *slot = (us * 1e3).round() as Ns;
            }
        }
        let trim = match &t.trim {
            Some(s) => TrimPolicy::parse(s).map_err(|e| bad(Some("trim"), e.to_string()))?,
            None => TrimPolicy::None,
        };
        if let Some(x) = t.cpu_scale {
            if !(x.is_finite() && (0.0..=1000.0).contains(&x)) {
                return Err(bad(Some("cpu_scale"), format!("{x} is not between 0 and 1000")));
            }
        }
        let idle_exit_ns = match t.idle_exit_us {
            Some(us) if !(us.is_finite() && (0.0..=1e6).contains(&us)) => {
                return Err(bad(Some("idle_exit_us"), format!("{us} is not between 0 and 1000000 µs")));
            }
            Some(us) => (us * 1e3).round() as Ns,
            None => 0,
        };
        Ok(Stack { shared_storage, shared_cost, trim, cpu_scale: t.cpu_scale, idle_exit_ns })
    }

    /// One line: `shared storage fuse (+58 µs a request), daily fstrim`.
    pub fn label(&self) -> String {
        let layer = match self.shared_storage {
            SharedLayer::None => "no shared-storage layer".to_string(),
            l => format!("shared storage {l} (+{:.1} µs a request)", self.shared_cost.total_ns() as f64 / 1e3),
        };
        let cpu = match self.cpu_scale {
            Some(x) => {
                let c = flashlab_simfs::FsCpu::scaled(x);
                format!(
                    ", host CPU this machine's x {x} (write {:.1} µs, fsync {:.1} µs, ext4 commit {:.1} µs)",
                    c.write_ns as f64 / 1e3,
                    c.fsync_ns as f64 / 1e3,
                    c.commit_ns as f64 / 1e3
                )
            }
            None => String::new(),
        };
        format!("{layer}, trim: {}{cpu}", self.trim.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(system: &str) -> Profile {
        let text = flashsim::builtin::TOY.to_string() + "\n[system]\n" + system;
        Profile::from_toml("toy.toml", &text).unwrap()
    }

    #[test]
    fn reads_the_stack_of_a_profile() {
        let s = Stack::from_profile(
            &profile("filesystem = \"ext4\"\nshared_storage = \"fuse\"\ntrim = \"daily\"\n"),
            "toy",
        )
        .unwrap();
        assert_eq!(s.shared_storage, SharedLayer::Fuse);
        assert!(s.shared_cost.total_ns() > 0);
        assert_eq!(s.trim, TrimPolicy::Fstrim { interval_ns: DAY });
        let s =
            Stack::from_profile(&profile("filesystem = \"ext4\"\nshared_storage_submit_us = 7.5\n"), "toy").unwrap();
        assert_eq!(s.shared_cost.submit_ns, 7500);
        assert_eq!(Stack::from_profile(&profile("filesystem = \"ext4\"\n"), "toy").unwrap(), Stack::default());
        let s = Stack::from_profile(&profile("filesystem = \"ext4\"\nidle_exit_us = 40\n"), "toy").unwrap();
        assert_eq!(s.idle_exit_ns, 40_000);
        // The device a system builds carries it; a profile without it, none.
        let p = profile("filesystem = \"ext4\"\nidle_exit_us = 20\n");
        assert_eq!(crate::system::new_device(&p, 1).host().idle_exit, 20_000);
        assert_eq!(crate::system::new_device(&profile("filesystem = \"ext4\"\n"), 1).host().idle_exit, 0);
    }

    #[test]
    fn bad_values_name_the_field() {
        let e = Stack::from_profile(&profile("filesystem = \"ext4\"\nshared_storage = \"nfs\"\n"), "toy").unwrap_err();
        let e = e.to_string();
        assert!(e.contains("shared_storage") && e.contains("nfs"), "{e}");
        let e = Stack::from_profile(&profile("filesystem = \"ext4\"\ntrim = \"hourly\"\n"), "toy").unwrap_err();
        let e = e.to_string();
        assert!(e.contains("'trim'") && e.contains("hourly"), "{e}");
        let e =
            Stack::from_profile(&profile("filesystem = \"ext4\"\nshared_storage_submit_us = -1\n"), "toy").unwrap_err();
        let e = e.to_string();
        assert!(e.contains("shared_storage_submit_us"), "{e}");
        let e = Stack::from_profile(&profile("filesystem = \"ext4\"\nidle_exit_us = -3\n"), "toy").unwrap_err();
        let e = e.to_string();
        assert!(e.contains("idle_exit_us") && e.contains("-3"), "{e}");
    }

    #[test]
    fn trim_policies_parse_and_fall_due() {
        assert_eq!(TrimPolicy::parse("fstrim:12h").unwrap(), TrimPolicy::Fstrim { interval_ns: 12 * HOUR });
        assert!(TrimPolicy::parse("fstrim:0s").is_err());
        // A daily timer fires at the first day boundary inside an idle period.
        let d = TrimPolicy::Fstrim { interval_ns: DAY };
        assert_eq!(d.fstrim_in_idle(0, HOUR, None), None);
        assert_eq!(d.fstrim_in_idle(DAY - HOUR, DAY + HOUR, None), Some(DAY));
        assert_eq!(d.fstrim_in_idle(DAY + 2 * HOUR, 3 * DAY, Some(DAY)), Some(2 * DAY));
        // Idle maintenance needs an hour of idle first, then at most once a day.
        let a = TrimPolicy::Android;
        assert_eq!(a.fstrim_in_idle(0, HOUR / 2, None), None);
        assert_eq!(a.fstrim_in_idle(5, 2 * HOUR, None), Some(5 + HOUR));
        assert_eq!(a.fstrim_in_idle(3 * HOUR, 6 * HOUR, Some(HOUR)), None);
        assert_eq!(a.fstrim_in_idle(DAY, DAY + 2 * HOUR, Some(HOUR)), Some(DAY + HOUR));
        assert_eq!(TrimPolicy::Discard.fstrim_in_idle(0, 10 * DAY, None), None);
    }
}
