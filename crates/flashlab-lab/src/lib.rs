//! flashlab-lab: what flashlab runs on a target — workloads, the closed-loop engine, the
//! simulated filesystem, protocols and experiments — and the results they produce.

pub mod experiments;
pub mod rng;
