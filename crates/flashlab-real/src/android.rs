//! Android specifics of real targets, for the static ARM build run from `adb shell`:
//!
//! * [`is_android`]: whether flashlab runs on Android (`ANDROID_ROOT` and `ANDROID_DATA` are set,
//!   as every Android shell has them, and `/system/bin/sh` exists; `FLASHLAB_ANDROID=1|0`
//!   overrides the guess).
//! * [`explain_uring_error`]: why io_uring could not be set up, in words (a seccomp filter, an
//!   SELinux denial, a kernel without it). Android blocks io_uring for most processes, so the
//!   default engine there is psync (see [`crate::engine::choose_engine`]).
//! * [`request_trim`]: without root, FITRIM is refused; Android's storage manager can still be
//!   asked to trim: `sm fstrim` (vold trims every internal volume in the background), else
//!   `sm idle-maint run` (the idle-maintenance job, which includes fstrim). The returned text
//!   says which ran; neither reports how many bytes were trimmed.

use std::path::Path;
use std::process::Command;

/// Whether this process runs on Android.
pub fn is_android() -> bool {
    match std::env::var("FLASHLAB_ANDROID").ok().as_deref() {
        Some("1") | Some("yes") | Some("true") => return true,
        Some("0") | Some("no") | Some("false") => return false,
        _ => {}
    }
    std::env::var_os("ANDROID_ROOT").is_some()
        && std::env::var_os("ANDROID_DATA").is_some()
        && Path::new("/system/bin/sh").exists()
}

/// `Seccomp:` of `/proc/self/status`: 0 none, 1 strict, 2 filter.
pub fn seccomp_mode() -> Option<u32> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines().find_map(|l| l.strip_prefix("Seccomp:").and_then(|v| v.trim().parse().ok()))
}

/// Words for an io_uring_setup failure.
pub fn explain_uring_error(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOSYS) => format!("io_uring_setup: {e} (the kernel has no io_uring)"),
        Some(libc::EPERM) if seccomp_mode() == Some(2) => {
            format!("io_uring_setup: {e} (blocked by this process's seccomp filter)")
        }
        Some(libc::EPERM) => {
            format!("io_uring_setup: {e} (disabled: kernel.io_uring_disabled, or a security policy)")
        }
        Some(libc::EACCES) => format!("io_uring_setup: {e} (denied by the security policy, e.g. SELinux)"),
        _ => format!("io_uring_setup: {e}"),
    }
}

/// Ask Android to trim; `sm` is looked up on `PATH`. Returns what ran, or why nothing did.
pub fn request_trim() -> Result<String, crate::SmError> {
    use crate::SmError;
    let run = |args: &[&str]| -> Result<(), SmError> {
        let out = Command::new("sm")
            .args(args)
            .output()
            .map_err(|source| SmError::NotRun { args: args.join(" "), source })?;
        if out.status.success() {
            Ok(())
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            let msg =
                err.lines().chain(String::from_utf8_lossy(&out.stdout).lines()).next().unwrap_or("").trim().to_string();
            Err(SmError::Failed { args: args.join(" "), status: out.status, output: msg })
        }
    };
    match run(&["fstrim"]) {
        Ok(()) => Ok("ran `sm fstrim`: vold trims the internal volumes in the background (it does not report the bytes trimmed)".into()),
        Err(first) => match run(&["idle-maint", "run"]) {
            Ok(()) => Ok(format!("{first}; ran `sm idle-maint run` instead: Android's idle maintenance, which includes fstrim, runs in the background (it does not report the bytes trimmed)")),
            Err(second) => Err(SmError::Both { first: Box::new(first), second: Box::new(second) }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uring_errors_in_words() {
        let e = |n| explain_uring_error(&std::io::Error::from_raw_os_error(n));
        assert!(e(libc::ENOSYS).contains("the kernel has no io_uring"));
        assert!(e(libc::EACCES).contains("SELinux"));
        let eperm = e(libc::EPERM);
        match seccomp_mode() {
            Some(2) => assert!(eperm.contains("seccomp filter"), "{eperm}"),
            _ => assert!(eperm.contains("io_uring_disabled"), "{eperm}"),
        }
        assert!(e(libc::EINVAL).starts_with("io_uring_setup: "));
    }
}
