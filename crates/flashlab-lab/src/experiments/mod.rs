//! Experiments that run directly on a simulated device or system.

pub mod fill;
pub mod fs_study;
pub mod placement;
pub mod waf;
pub mod wsat;
