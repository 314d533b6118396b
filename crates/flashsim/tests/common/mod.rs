//! Shared helpers for flashsim's integration tests.
#![allow(dead_code)]

use flashsim::Profile;

pub const TOY: &str = include_str!("../../../../profiles/toy.toml");

pub fn toy() -> Profile {
    Profile::from_toml("toy.toml", TOY).unwrap()
}
