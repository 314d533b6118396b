//! flashsim: the simulator core of flashlab. A flash device — NAND dies and channels, a
//! page-mapped FTL with garbage collection, TRIM and wear, and a host interface (eMMC, UFS,
//! NVMe) — simulated in virtual time. A profile may choose a hybrid log-block FTL instead,
//! as cheap DRAM-less eMMC controllers use.
//!
//! No I/O, no wall clock, no threads: a [`Device`] takes requests with their arrival time and
//! returns when they complete. The same profile, requests and seed give the same results.
//!
//! Layout: [`profile`] (TOML device description) → [`nand`] (geometry, timing) and
//! [`timeline`] (time resources) → [`mapping`]: [`ftl`] (page mapping, buffer, GC, with [`victim`] and
//! [`buffer`]) or [`hybrid`] (log blocks and merges) → [`host`] (queue, bus, controller) → [`device`] (the whole, request API).
//! [`temperature`] places host data by temperature (hot/cold frontiers).
//! [`counters`] and [`analytic`] give the numbers to check it by. [`builtin`] holds the device
//! profiles built into flashlab (`profiles/*.toml`).

pub mod analytic;
pub mod buffer;
pub mod builtin;
mod capacity;
pub mod counters;
pub mod device;
pub mod ftl;
pub mod host;
pub mod hybrid;
pub mod mapcache;
pub mod mapping;
mod memory;
pub mod nand;
mod packed;
pub mod profile;
pub mod suspend;
pub mod temperature;
pub mod timeline;
pub mod victim;

pub use counters::{Counters, DeviceState, Wear};
pub use device::{Completion, Device, Op, Request, RequestError, SECTOR};
pub use profile::{GcPolicy, Interface, MappingKind, Profile, ProfileError, MAP_UNIT};
pub use temperature::TemperatureMode;
pub use timeline::Ns;
