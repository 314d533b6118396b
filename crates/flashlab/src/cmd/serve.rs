//! `flashlab serve`: parse the options, start the server (flashlab-serve), print where the
//! device is, serve until Ctrl-C / SIGTERM, print the final report.

use crate::cli::ServeArgs;
use crate::error::Error;
use flashlab_lab::units::parse_cli_size;
use flashlab_results::body::ServeBody;
use flashlab_results::{Body, Document};
use flashlab_serve::teardown::{catch_signals, serve_until_signal, Ending};
use flashlab_serve::{ServeOptions, Server};
use std::sync::Arc;

/// `flashlab serve`: a simulated device as a block device, until a signal.
pub fn serve(a: &ServeArgs) -> Result<(), Error> {
    // SAFETY: geteuid has no preconditions.
    if flashlab_real::android::is_android() && unsafe { libc::geteuid() } != 0 {
        return Err(Error::Usage("serve needs to mount FUSE (/dev/fuse), which Android allows only to root: run it from a root shell (adb root, su) or on a Linux host".into()));
    }
    let profile = crate::target::sim_profile(&a.target)?;
    // A served device is a plain block device: the kernel would write a zoned one anywhere.
    flashlab_lab::precondition::refuse_zoned(&profile)?;
    let mut o = ServeOptions::new(profile, a.dir.clone());
    o.size = a.size.as_deref().map(|s| parse_cli_size(s).map_err(Error::at(format!("--size {s}")))).transpose()?;
    o.time_scale = a.time_scale;
    o.skip_host_gaps = match a.skip_host_gaps {
        Some(ms) if ms.is_finite() && ms > 0.0 && ms <= 60_000.0 => Some(std::time::Duration::from_secs_f64(ms / 1e3)),
        Some(ms) => {
            return Err(Error::Usage(format!("--skip-host-gaps {ms}: expected milliseconds above 0, at most 60000")))
        }
        None => None,
    };
    o.backing = a.backing.clone();
    o.overwrite_backing = a.overwrite_backing;
    o.volatile_cache = a.volatile_cache;
    o.attach = a.attach;
    o.threads = a.threads;
    o.seed = a.seed;
    let quiet = crate::output_args::text_mode() == crate::output_args::TextMode::Silent;
    let say = move |m: &str| {
        if !quiet {
            eprintln!("flashlab serve: {m}")
        }
    };
    // Caught before the mount, so a signal at any moment (even right after "ready") ends in
    // the ordered teardown rather than in the default action, which left the mount behind.
    let signals = catch_signals().map_err(|source| Error::Setup { what: "signals", source })?;
    let server = Server::start(&o, Arc::new(say))?;
    let snap = server.snapshot();
    crate::outln!(
        "serving {} ({} bytes, time scale {}{}) at {}",
        a.target,
        snap.size_bytes,
        a.time_scale,
        if a.volatile_cache { ", volatile cache" } else { "" },
        server.device_path().display()
    );
    crate::outln!("stats: {}", a.dir.join("stats.json").display());
    crate::outln!("power cut: echo powercut > {}", a.dir.join(".ctl").display());
    if let Some(d) = server.loop_device() {
        crate::outln!("attached {d}");
    }
    crate::outln!("ready (Ctrl-C or SIGTERM to stop)");
    let ending =
        serve_until_signal(server, signals, &say).map_err(|source| Error::Setup { what: "signals", source })?;
    // flashlab's signal policy: the exit status is 128 + the signal, after the cleanup.
    let (s, sig, clean) = match ending {
        Ending::Clean(s, sig) => (s, sig, true),
        Ending::Forced(s, sig) => (s, sig, false),
    };
    crate::out!("{}", s.render_text());
    let doc = Document::new(Body::Serve(ServeBody { signal: sig, clean, stats: s.to_json() }))
        .target(&a.target)
        .seed(a.seed)
        .param("time_scale", a.time_scale)
        .param("skip_host_gaps_ms", a.skip_host_gaps)
        .param("size", &a.size);
    let written = a.out.write(&doc, "serve");
    if clean {
        crate::outln!("stopped cleanly");
    } else {
        eprintln!("flashlab: error: stopped by force: the loop device or the mount was still in use");
    }
    if let Err(e) = written {
        eprintln!("flashlab: error: {e}");
    }
    std::process::exit(128 + sig)
}
