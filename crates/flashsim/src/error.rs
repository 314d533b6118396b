//! flashsim's error type for what is neither a bad request ([`RequestError`], returned by
//! [`crate::Device::submit`]) nor a bad profile ([`ProfileError`], from
//! [`crate::Profile::from_toml`]): set-up that the device's state does not allow, and broken
//! invariants found by the checker. It also converts from both, for a caller that wants one
//! error type from the simulator.

use crate::device::RequestError;
use crate::profile::ProfileError;

/// What went wrong in a call into the simulator core.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// [`crate::Device::map_all_sequential`] was asked of a device that already holds data
    /// (a unit mapped, a unit buffered, or a block opened): the bulk fill only sets up a new
    /// device.
    #[error("the device is not new: a bulk sequential fill needs an empty FTL")]
    NotNew,
    /// The bulk sequential fill found no free block left on a die (the profile's spare cannot
    /// hold its open blocks).
    #[error("die {die} ran out of free blocks during the bulk fill")]
    NoFreeBlock {
        /// The die, numbered as the NAND geometry numbers them (0 to channels x dies per
        /// channel - 1).
        die: u32,
    },
    /// [`crate::Device::check_invariants`] found the FTL's state inconsistent: the message
    /// names the logical unit, physical unit or block and the values that disagree.
    #[error("{0}")]
    Invariant(String),
    /// A request the device refused.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// A profile that could not be read.
    #[error(transparent)]
    Profile(#[from] ProfileError),
}
