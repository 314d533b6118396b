//! Teardown on Ctrl-C / SIGTERM, in order: detach the loop device, then unmount FUSE.
//!
//! If the loop device is still in use (a filesystem on it is mounted), or a process has the
//! FUSE file open, the server says what holds it and keeps serving; it stops by itself as soon
//! as the device is free. A second
//! signal forces the stop: the detach is deferred by the kernel until the last user closes the
//! device, FUSE is unmounted lazily, and I/O still in flight fails once the process exits.

use crate::{ServeError, Server, Snapshot};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::time::Duration;

/// How the server ended.
pub enum Ending {
    Clean(Snapshot),
    Forced(Snapshot),
}

/// Serve until SIGINT or SIGTERM, then shut down in order. `say` prints progress messages.
pub fn serve_until_signal(server: Server, say: &dyn Fn(&str)) -> std::io::Result<Ending> {
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    // Wait for the first signal.
    let first = signals.forever().next();
    say(&format!("signal {} received: stopping", first.unwrap_or(0)));
    let mut server = server;
    let mut told = false;
    loop {
        match server.stop() {
            Ok(s) => return Ok(Ending::Clean(s)),
            Err(b) => {
                let (back, e) = *b;
                server = back;
                if !told {
                    if let ServeError::Busy { .. } = e {
                        say(&format!(
                            "{e}; unmount it / close it and the server stops by itself (signal again to force)"
                        ));
                    } else {
                        say(&format!("{e} (signal again to force)"));
                    }
                    told = true;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(500));
        if signals.pending().next().is_some() {
            say("second signal: forcing the stop; I/O on the device will fail");
            return Ok(Ending::Forced(server.force_stop()));
        }
    }
}
