//! Experiments that run directly on a simulated device.

pub mod waf;
