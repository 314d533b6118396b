//! `flashlab profiles`: list the built-in device profiles or print one.

use crate::cli::ProfilesArgs;
use crate::error::Error;
use crate::out;
use flashlab_lab::profiles;
use flashlab_results::body::{ProfileRow, ProfilesBody};
use flashlab_results::{Body, Document};
use flashsim::Profile;

/// `flashlab profiles [NAME]`: the built-in profiles, or one profile's TOML.
pub fn profiles(a: &ProfilesArgs) -> Result<(), Error> {
    if let Some(name) = &a.name {
        let text = profiles::builtin(name).ok_or_else(|| {
            let hint = crate::suggest::hint(name, profiles::BUILTIN.iter().map(|(n, _)| *n), "");
            Error::Usage(format!("unknown profile '{name}'{hint}; built-in profiles: {}", crate::target::names()))
        })?;
        if a.out.json.is_some() || a.out.csv.is_some() {
            return Err(Error::flag(
                "--json/--csv",
                "list the profiles (flashlab profiles --json FILE); one profile is its TOML",
            ));
        }
        out!("{text}");
        return Ok(());
    }
    let mut rows = Vec::new();
    for (n, text) in profiles::BUILTIN {
        let p = Profile::from_toml(n, text)?;
        rows.push(ProfileRow {
            name: n.to_string(),
            interface: p.host.interface.name().to_string(),
            logical_bytes: p.logical_bytes(),
            nand: format!("{:?} {}ch x {}die", p.nand.cell, p.nand.channels, p.nand.dies_per_channel),
            description: p.description.clone(),
        });
    }
    let doc = Document::new(Body::Profiles(ProfilesBody { profiles: rows, default: profiles::DEFAULT.to_string() }));
    for t in doc.tables() {
        crate::output_args::table(&t);
    }
    crate::proseln!(
        "default: {} (flashlab profiles NAME prints one; --target sim:NAME or sim:FILE.toml uses one)",
        profiles::DEFAULT
    );
    a.out.write(&doc, "profiles")
}
