//! Shared helpers for flashsim's integration tests.
#![allow(dead_code)]

use flashsim::Profile;

pub const TOY: &str = flashsim::builtin::TOY;

pub fn toy() -> Profile {
    Profile::from_toml("toy.toml", TOY).unwrap()
}

/// The toy device with 4 MiB erase blocks (`fixtures/toy-4mib-blocks.toml`): cleaning one
/// victim takes longer than the 250 ms ceiling, as on emmc-5.1's 8 MiB blocks.
pub const TOY_4MIB_BLOCKS: &str = include_str!("../fixtures/toy-4mib-blocks.toml");

pub fn toy_4mib_blocks() -> Profile {
    Profile::from_toml("toy-4mib-blocks.toml", TOY_4MIB_BLOCKS).unwrap()
}
