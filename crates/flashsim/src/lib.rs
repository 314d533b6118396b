//! flashsim: the simulator core of flashlab. A flash device — NAND dies and channels, a
//! page-mapped FTL with garbage collection, TRIM and wear, and a host interface (eMMC, UFS,
//! NVMe) — simulated in virtual time. A profile may choose a hybrid log-block FTL instead,
//! as cheap DRAM-less eMMC controllers use. Not here: files, filesystems, workloads, reports
//! and the wall clock (flashlab's other crates).
//!
//! No I/O, no wall clock, no threads: a [`Device`] takes requests with their arrival time and
//! returns when they complete. The same profile, requests and seed give the same results.
//!
//! ```
//! use flashsim::{builtin, Device, Op, Profile, Request};
//! let profile = Profile::from_toml("toy.toml", builtin::TOY).unwrap();
//! let mut dev = Device::new(&profile, 1);
//! let c = dev.submit(0, &Request::new(Op::Write, 0, 4096)).unwrap();
//! assert!(c.done > c.submitted);
//! ```
//!
//! Layout: [`profile`] (TOML device description) → `nand` (geometry, timing) and `timeline`
//! (time resources) → the FTL behind the `Translation` trait (`translation.rs`): `ftl` (page
//! mapping, buffer, GC, with `victim` and `buffer`) or `hybrid` (log blocks and merges), one of
//! them held by `mapping` → `host` (queue, bus, controller) → [`Device`] (the whole, request
//! API). A profile may also make the device zoned (`zoned`, with the zones' state machine in
//! [`zone`]). [`temperature`] places host data by temperature (hot/cold frontiers). [`Counters`] and
//! [`analytic`] give the numbers to check it by. [`sorted_ring`] is the short time-ordered queue
//! of the host interface's commands in flight, shared with flashlab's workload engine. [`builtin`] holds the device profiles built
//! into flashlab (`profiles/*.toml`). Errors: [`RequestError`] for a refused request,
//! [`ProfileError`] for a bad profile, [`Error`] for the rest.

/// An assertion on the simulator's hot paths, where a broken state would otherwise go
/// unnoticed: checked in debug builds and with cargo feature `checked`, compiled out of other
/// release builds (so that their speed is unchanged). `check.rs` says what is checked where.
macro_rules! hot_assert {
    ($($arg:tt)*) => {
        if cfg!(any(debug_assertions, feature = "checked")) {
            assert!($($arg)*);
        }
    };
}

// `translation` first: `enum_dispatch` must see the trait before the enum (`mapping`) that
// implements it, so that it writes the enum's impl where the enum is.
mod translation;

pub mod analytic;
mod buffer;
pub mod builtin;
mod capacity;
pub mod check;
mod counters;
mod device;
mod error;
#[cfg(feature = "fault-injection")]
pub mod fault;
pub mod fdp;
mod ftl;
mod host;
mod hybrid;
mod map_log;
mod mapcache;
mod mapping;
mod memory;
mod nand;
mod packed;
pub mod profile;
pub mod profile_base;
mod read_priority;
pub mod sorted_ring;
mod suspend;
pub mod temperature;
mod timeline;
mod victim;
pub mod zone;
mod zoned;

pub use check::{Violation, DEFAULT_CHECK_EVERY};
pub use counters::{Counters, DeviceState, Wear};
pub use device::{Completion, Device, Op, Request, RequestError, SECTOR};
pub use error::Error;
pub use fdp::{FdpConfig, FdpStats, HandleStats, Isolation};
pub use host::HostInterface;
pub use nand::xfer_ns;
pub use profile::{GcPolicy, Interface, MappingKind, Profile, ProfileError, SequentialLog, ZonedConfig, MAP_UNIT};
pub use temperature::TemperatureMode;
pub use timeline::Ns;
pub use zone::{Zone, ZoneError, ZoneLayout, ZoneState, ZONE_BLOCK};
