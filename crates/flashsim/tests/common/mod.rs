//! Shared helpers for flashsim's integration tests.
#![allow(dead_code)]

use flashsim::Profile;

pub const TOY: &str = flashsim::builtin::TOY;

pub fn toy() -> Profile {
    Profile::from_toml("toy.toml", TOY).unwrap()
}
