//! `flashlab phone`: flashlab on an Android phone over adb. The host finds the phone
//! (`adb devices`), describes it (`getprop`, `id -u`), pushes the static ARM build that matches
//! its CPU into a new directory under /data/local/tmp, runs `bench`, the `fill` procedure (test
//! /data, fill shared storage, test /data again), an aging protocol with a shortened idle, or a
//! job file there with psync and O_DIRECT, streams its progress, pulls the results document back,
//! renders the tables and reports here, and removes everything it created on the phone, also
//! after errors and Ctrl-C. `phone doctor` captures the storage setup and judges it here.
//!
//! * [`cli`]: the options; [`adb`]: calling adb; [`device`]: choosing and describing the phone;
//! * [`plan`]: what a run does, as data (the adb calls can be listed without a phone);
//! * [`session`]: carrying a plan out; [`render`]: tables from the pulled document;
//! * [`doctor`]: the doctor over adb.

pub mod adb;
pub mod cli;
pub mod device;
pub mod doctor;
pub mod plan;
pub mod render;
pub mod session;

use crate::report::output::write_json;
use adb::Adb;
use cli::{PhoneCommand, RunOnPhone};
use plan::Plan;

pub fn run(c: &PhoneCommand) -> Result<(), String> {
    match c {
        PhoneCommand::Devices(a) => devices(a),
        PhoneCommand::Doctor(a) => doctor::doctor(a),
        PhoneCommand::Bench(a) => on_phone(&a.on, |bin| Ok(plan::bench(a, bin))),
        PhoneCommand::Fill(a) => on_phone(&a.bench.on, |bin| plan::fill(a, bin)),
        PhoneCommand::Age(a) => on_phone(&a.bench.on, |bin| plan::age(a, bin)),
        PhoneCommand::Run(a) => on_phone(&a.on, |bin| plan::run(a, bin)),
    }
}

fn devices(a: &cli::ConnArgs) -> Result<(), String> {
    let base = Adb::new(a.adb.as_deref());
    let text = base.checked(&base.args(&["devices"]))?;
    let all = adb::parse_devices(&text);
    if all.is_empty() {
        println!("no device attached (connect a phone by USB with USB debugging on)");
    }
    for d in all {
        if d.state != "device" {
            println!("{}  {}", d.serial, d.state);
            continue;
        }
        let mut one = base.clone();
        match device::connect(&mut one, Some(&d.serial)) {
            Ok(dev) => {
                let build = dev.rust_target().map(|t| format!("binary: {t}")).unwrap_or_else(|e| e);
                println!("{}  {build}", dev.label());
            }
            Err(e) => println!("{}  {e}", d.serial),
        }
    }
    Ok(())
}

/// Connects, builds the plan, runs it, renders the pulled document.
fn on_phone(on: &RunOnPhone, make: impl FnOnce(std::path::PathBuf) -> Result<Plan, String>) -> Result<(), String> {
    // Output files fail now, not after an hour on the phone.
    for p in on.json.iter().chain(on.report.iter()) {
        std::fs::OpenOptions::new().create(true).append(true).open(p).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let mut adb = Adb::new(on.conn.adb.as_deref());
    let dev = device::connect(&mut adb, on.conn.serial.as_deref())?;
    let target = dev.rust_target()?;
    let bin = device::binary_for(target, on.binary.as_deref())?;
    let plan = make(bin)?;
    eprintln!("phone: {}", dev.label());
    if on.dry_run {
        println!("adb calls of flashlab phone {} (the first three were made):", plan.what);
        for call in plan.adb_calls(&adb, "HOST_TMP", &format!("HOST_TMP/{}", plan::RESULTS)) {
            let words: Vec<&str> =
                std::iter::once(adb.program.as_str()).chain(call.iter().map(String::as_str)).collect();
            println!("  {}", adb::join(&words));
        }
        return Ok(());
    }
    if dev.root {
        eprintln!("phone: the adb shell is root: fstrim steps run FITRIM directly");
    } else {
        eprintln!("phone: no root: fstrim steps cannot run FITRIM; flashlab asks Android instead (sm fstrim, else sm idle-maint run) and says which ran");
    }
    let local = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let results = local.path().join(plan::RESULTS);
    session::execute(&adb, &plan, &results)?;
    let text = std::fs::read_to_string(&results).map_err(|e| format!("{}: {e}", results.display()))?;
    let mut doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("the results document from the phone: {e}"))?;
    if let Some(o) = doc.as_object_mut() {
        o.insert(
            "phone".into(),
            serde_json::json!({"serial": dev.serial, "model": dev.model, "android": dev.release, "sdk": dev.sdk, "abi": dev.abi, "root": dev.root}),
        );
    }
    let table = if plan.what == "run" { render::jobs(&doc)? } else { render::protocol(&doc)? };
    println!("flashlab {} on {} — results from the phone:", plan.what, dev.model.as_deref().unwrap_or(&dev.serial));
    print!("{table}");
    if let Some(p) = &on.json {
        write_json(p, &doc)?;
        println!("results written to {}", p.display());
    }
    if let Some(p) = &on.report {
        crate::cmd::report::write_for(
            p,
            &format!("{} {}", plan.what, dev.model.as_deref().unwrap_or(&dev.serial)),
            doc,
        )?;
    }
    Ok(())
}
