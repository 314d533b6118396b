//! `flashlab profiles`: list the built-in device profiles or print one.

use crate::report::table::Table;
use flashlab_lab::profiles;
use flashsim::Profile;

pub fn profiles(name: Option<&str>) -> Result<(), String> {
    if let Some(name) = name {
        let text = profiles::builtin(name)
            .ok_or_else(|| format!("unknown profile '{name}'; built-in profiles: {}", crate::target::names()))?;
        print!("{text}");
        return Ok(());
    }
    let mut t = Table::new(&[("name", ""), ("interface", ""), ("capacity", "GB"), ("NAND", ""), ("description", "")]);
    for (n, text) in profiles::BUILTIN {
        let p = Profile::from_toml(n, text).map_err(|e| e.to_string())?;
        t.row(vec![
            n.to_string(),
            p.host.interface.name().to_string(),
            format!("{:.1}", p.logical_bytes() as f64 / 1e9),
            format!("{:?} {}ch x {}die", p.nand.cell, p.nand.channels, p.nand.dies_per_channel),
            p.description.clone(),
        ]);
    }
    print!("{}", t.render());
    println!(
        "default: {} (flashlab profiles NAME prints one; --target sim:NAME or sim:FILE.toml uses one)",
        profiles::DEFAULT
    );
    Ok(())
}
