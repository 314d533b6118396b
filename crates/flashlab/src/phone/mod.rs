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
//! * [`session`]: carrying a plan out (the pulled results document is drawn with its own tables);
//! * [`doctor`]: the doctor over adb.

pub mod adb;
pub mod cli;
pub mod device;
pub mod doctor;
pub mod plan;
pub mod session;

use crate::error::Error;
use crate::outln;
use adb::Adb;
use cli::{PhoneCommand, RunOnPhone};
use flashlab_results::body::PhoneBody;
use flashlab_results::{Body, Document};
use plan::Plan;

/// `flashlab phone SUBCOMMAND`.
pub fn run(c: &PhoneCommand) -> Result<(), Error> {
    match c {
        PhoneCommand::Devices(a) => devices(a),
        PhoneCommand::Doctor(a) => doctor::doctor(a),
        PhoneCommand::Bench(a) => on_phone(&a.on, |bin| Ok(plan::bench(a, bin))),
        PhoneCommand::Fill(a) => on_phone(&a.bench.on, |bin| plan::fill(a, bin)),
        PhoneCommand::Age(a) => on_phone(&a.bench.on, |bin| plan::age(a, bin)),
        PhoneCommand::Run(a) => on_phone(&a.on, |bin| plan::run(a, bin)),
    }
}

fn devices(args: &cli::DevicesArgs) -> Result<(), Error> {
    let a = &args.conn;
    let base = Adb::new(a.adb.as_deref());
    let text = base.checked(&base.args(&["devices"]))?;
    let all = adb::parse_devices(&text);
    if all.is_empty() {
        outln!("no device attached (connect a phone by USB with USB debugging on)");
    }
    let mut found = Vec::new();
    for d in all {
        if d.state != "device" {
            outln!("{}  {}", d.serial, d.state);
            found.push(serde_json::json!({"serial": d.serial, "state": d.state}));
            continue;
        }
        let mut one = base.clone();
        match device::connect(&mut one, Some(&d.serial)) {
            Ok(dev) => {
                let build = dev.rust_target().map(|t| format!("binary: {t}")).unwrap_or_else(|e| e.to_string());
                outln!("{}  {build}", dev.label());
                found.push(serde_json::json!({"serial": dev.serial, "state": d.state, "model": dev.model,
                    "android": dev.release, "sdk": dev.sdk, "abi": dev.abi, "root": dev.root, "binary": build}));
            }
            Err(e) => {
                outln!("{}  {e}", d.serial);
                found.push(serde_json::json!({"serial": d.serial, "state": d.state, "error": e.to_string()}));
            }
        }
    }
    let doc = Document::new(Body::Phone(PhoneBody {
        subcommand: "devices".into(),
        phone: None,
        devices: found,
        results: None,
    }));
    args.out.write(&doc, "phone devices")
}

/// Connects, builds the plan, runs it, renders the pulled document.
fn on_phone(on: &RunOnPhone, make: impl FnOnce(std::path::PathBuf) -> Result<Plan, Error>) -> Result<(), Error> {
    // Output files were checked before the command started (outputs.rs), not after an hour
    // on the phone.
    let mut adb = Adb::new(on.conn.adb.as_deref());
    let dev = device::connect(&mut adb, on.conn.serial.as_deref())?;
    let target = dev.rust_target()?;
    let bin = device::binary_for(target, on.binary.as_deref())?;
    let plan = make(bin)?;
    eprintln!("phone: {}", dev.label());
    if on.dry_run {
        outln!("adb calls of flashlab phone {} (the first three were made):", plan.what);
        for call in plan.adb_calls(&adb, "HOST_TMP", &format!("HOST_TMP/{}", plan::RESULTS)) {
            let words: Vec<&str> =
                std::iter::once(adb.program.as_str()).chain(call.iter().map(String::as_str)).collect();
            outln!("  {}", adb::join(&words));
        }
        return Ok(());
    }
    if dev.root {
        eprintln!("phone: the adb shell is root: fstrim steps run FITRIM directly");
    } else {
        eprintln!("phone: no root: fstrim steps cannot run FITRIM; flashlab asks Android instead (sm fstrim, else sm idle-maint run) and says which ran");
    }
    let local = tempfile::tempdir().map_err(|source| Error::Setup { what: "temporary directory", source })?;
    let results = local.path().join(plan::RESULTS);
    session::execute(&adb, &plan, &results)?;
    let text = std::fs::read_to_string(&results).map_err(Error::io(&results))?;
    let pulled: Document =
        serde_json::from_str(&text).map_err(|e| Error::Phone(format!("the results document from the phone: {e}")))?;
    let name = dev.model.as_deref().unwrap_or(&dev.serial).to_string();
    outln!("flashlab {} on {name} — results from the phone:", plan.what);
    match &pulled.body {
        // A job file's summary per job (the intervals are in --csv and --json).
        Body::Run(r) => crate::output_args::table(&r.jobs_table()),
        _ => {
            for t in pulled.tables() {
                crate::output_args::table(&t);
            }
        }
    }
    if let Body::Age(b) | Body::Bench(b) = &pulled.body {
        for l in &b.log {
            outln!("{}", l.line());
        }
    }
    let phone = serde_json::json!({"serial": dev.serial, "model": dev.model, "android": dev.release, "sdk": dev.sdk, "abi": dev.abi, "root": dev.root});
    let doc = Document::new(Body::Phone(PhoneBody {
        subcommand: plan.what.clone(),
        phone: Some(phone),
        devices: Vec::new(),
        results: Some(Box::new(pulled.clone())),
    }))
    .seed(on.seed);
    // --json and --csv: the phone's document wrapped with the phone; --report draws the run.
    let mut out = on.out.clone();
    out.report = None;
    out.write(&doc, &plan.what)?;
    if let Some(p) = &on.out.report {
        let v = serde_json::to_value(&pulled).map_err(|source| Error::Json { what: "the phone's results", source })?;
        crate::cmd::report::write_for(p, &format!("{} {name}", plan.what), v)?;
    }
    Ok(())
}
