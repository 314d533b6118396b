//! adb as flashlab uses it: the argument vectors of each call (built here, so tests can check
//! them), running a call and reading its output, `adb devices` parsing, and shell quoting of
//! the one command string `adb shell` hands to the phone's `sh -c`.

use crate::error::Error;
use std::process::{Command, Output, Stdio};

/// One adb program and (once chosen) one device.
#[derive(Debug, Clone)]
pub struct Adb {
    /// The adb program (`--adb`, else `$ADB`, else `adb`).
    pub program: String,
    /// The device's serial, once chosen (`-s SERIAL`).
    pub serial: Option<String>,
}

/// A line of `adb devices`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The device's serial.
    pub serial: String,
    /// `device`, `unauthorized`, `offline`, `recovery`, ...
    pub state: String,
}

/// Parses `adb devices` (a header line, then `SERIAL<TAB>STATE` lines; `-l` extras ignored).
pub fn parse_devices(text: &str) -> Vec<Listed> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("List of devices") && !l.starts_with('*'))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some(Listed { serial: it.next()?.to_string(), state: it.next()?.to_string() })
        })
        .collect()
}

/// Quotes one word for a POSIX shell (the phone's `sh`).
pub fn quote(w: &str) -> String {
    if !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@%=,".contains(c)) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// Words joined into one shell command, each quoted.
pub fn join(words: &[&str]) -> String {
    words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}

impl Adb {
    /// adb as `program` names it (else `$ADB`, else `adb`), no device chosen yet.
    pub fn new(program: Option<&str>) -> Adb {
        let program = program
            .map(str::to_string)
            .or_else(|| std::env::var("ADB").ok().filter(|s| !s.is_empty()))
            .unwrap_or_else(|| "adb".to_string());
        Adb { program, serial: None }
    }

    /// The arguments of a call: `-s SERIAL` first when a device is chosen.
    pub fn args(&self, rest: &[&str]) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(s) = &self.serial {
            v.push("-s".to_string());
            v.push(s.clone());
        }
        v.extend(rest.iter().map(|s| s.to_string()));
        v
    }

    /// `adb [-s S] shell CMD` with CMD one shell command string.
    pub fn shell_args(&self, cmd: &str) -> Vec<String> {
        self.args(&["shell", cmd])
    }

    /// The command of a call, its standard input closed.
    pub fn command(&self, args: &[String]) -> Command {
        let mut c = Command::new(&self.program);
        c.args(args).stdin(Stdio::null());
        c
    }

    /// Runs a call to completion; an adb that cannot start is an error naming it.
    pub fn output(&self, args: &[String]) -> Result<Output, Error> {
        self.command(args).output().map_err(|source| Error::AdbStart { program: self.program.clone(), source })
    }

    /// Runs a call that must succeed; returns its standard output.
    pub fn checked(&self, args: &[String]) -> Result<String, Error> {
        let o = self.output(args)?;
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr);
            let why = err.lines().chain(out.lines()).find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
            return Err(Error::Adb { program: self.program.clone(), args: args.join(" "), status: o.status, why });
        }
        Ok(out)
    }

    /// Runs a shell command on the phone that must succeed.
    pub fn shell(&self, cmd: &str) -> Result<String, Error> {
        self.checked(&self.shell_args(cmd))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_quoting() {
        let l = parse_devices("List of devices attached\n0A1B2C\tdevice\nemulator-5554\toffline\n\n* daemon started\n");
        assert_eq!(l.len(), 2);
        assert_eq!((l[0].serial.as_str(), l[0].state.as_str()), ("0A1B2C", "device"));
        assert_eq!(l[1].state, "offline");
        assert_eq!(quote("/data/local/tmp"), "/data/local/tmp");
        assert_eq!(quote("a b'c"), "'a b'\\''c'");
        assert_eq!(join(&["rm", "-rf", "/x y"]), "rm -rf '/x y'");
    }
}
