//! Teardown on SIGINT, SIGTERM, SIGHUP or SIGQUIT (flashlab's one signal policy), in order:
//! detach the loop device, then unmount FUSE. A failure that is not "busy" is retried for at
//! most [`GIVE_UP`], then the stop is forced.
//!
//! If the loop device is still in use (a filesystem on it is mounted), or a process has the
//! FUSE file open, the server says what holds it and keeps serving; it stops by itself as soon
//! as the device is free. A second
//! signal forces the stop: the detach is deferred by the kernel until the last user closes the
//! device, FUSE is unmounted lazily, and I/O still in flight fails once the process exits.

use crate::{ServeError, Server, Snapshot};
use flashlab_real::cleanup::{signal_name, HANDLED_SIGNALS};
use signal_hook::iterator::Signals;
use std::time::{Duration, Instant};

/// How long a teardown step that fails for another reason than "busy" is retried.
pub const GIVE_UP: Duration = Duration::from_secs(10);

/// How the server ended, and the signal that ended it (the exit status is 128 + it).
pub enum Ending {
    /// Loop device detached and FUSE unmounted in order: final statistics, signal number.
    Clean(Snapshot, i32),
    /// Stopped by force (second signal or give-up): final statistics, signal number.
    Forced(Snapshot, i32),
}

/// The handled signals, caught from now on: call before the server starts (and before it
/// says it is ready), so a signal at any moment ends in the ordered teardown.
pub fn catch_signals() -> std::io::Result<Signals> {
    Signals::new(HANDLED_SIGNALS)
}

/// Serve until a handled signal (caught by `signals`, from [`catch_signals`]), then shut down
/// in order. `say` prints progress messages.
pub fn serve_until_signal(server: Server, mut signals: Signals, say: &dyn Fn(&str)) -> std::io::Result<Ending> {
    // Wait for the first signal.
    let sig = signals.forever().next().unwrap_or(signal_hook::consts::SIGTERM);
    say(&format!("{} received: stopping", signal_name(sig)));
    let mut server = server;
    let mut told = false;
    let mut failing_since: Option<Instant> = None;
    loop {
        match server.stop() {
            Ok(s) => return Ok(Ending::Clean(s, sig)),
            Err(b) => {
                let (back, e) = *b;
                server = back;
                if matches!(e, ServeError::Busy { .. }) {
                    failing_since = None;
                } else if failing_since.get_or_insert_with(Instant::now).elapsed() > GIVE_UP {
                    say(&format!("{e}: still failing after {} s; forcing the stop", GIVE_UP.as_secs()));
                    return Ok(Ending::Forced(server.force_stop(), sig));
                }
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
            return Ok(Ending::Forced(server.force_stop(), sig));
        }
    }
}
