//! The VM runner: boot the distribution's kernel (Debian's `linux-image-amd64`) in QEMU with
//! this host's own userspace, run one command as root in it, and bring back the files it
//! writes. It is how flashlab compares its models with what this host's kernel lacks (F2FS,
//! zoned `null_blk`): the guest sees the host's root filesystem read-only (so the flashlab
//! binary, `mkfs.f2fs`, fio and SQLite are all there) and one host directory read-write (the
//! *share*), where the command leaves its results.
//!
//! The booting is virtme-ng's (`vng`, from PyPI): it builds a small initramfs with the
//! kernel's virtio and 9p modules and mounts the host's root over 9p. Without hardware
//! virtualisation QEMU runs in TCG (`--disable-kvm`; KVM only when asked, [`KVM_VAR`]): a
//! boot takes about 25 s on a 2-core machine and the guest runs several times slower than the
//! host.
//!
//! Not for: anything that needs the guest's network or a disk image (the guest has neither);
//! running the host's kernel (it is the *other* kernel that matters here).
//!
//! ```no_run
//! let vm = flashlab_vm::Vm::find(&["f2fs"]).unwrap(); // names what is missing
//! let share = std::path::Path::new("/tmp/share");
//! let out = vm.run(&["sh".into(), "-c".into(), "modprobe f2fs && uname -r > /tmp/share/rel".into()], share).unwrap();
//! assert_eq!(out.status, 0);
//! ```

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The variable naming the `vng` program (else `vng` on `PATH`).
pub const VNG_VAR: &str = "FLASHLAB_VNG";
/// The variable that, set to `1`, boots with KVM instead of QEMU's TCG.
pub const KVM_VAR: &str = "FLASHLAB_VM_KVM";
/// The variable naming the kernel image to boot (else the newest `/boot/vmlinuz-*` that has
/// the modules asked for).
pub const KERNEL_VAR: &str = "FLASHLAB_VM_KERNEL";

/// Why the VM could not be found, booted or run; each says what to install or fix.
#[derive(Debug, thiserror::Error)]
pub enum VmError {
    /// `vng` not found.
    #[error("virtme-ng's vng is not on PATH and {VNG_VAR} is not set (pip install virtme-ng)")]
    NoVng,
    /// QEMU not found.
    #[error("qemu-system-x86_64 is not on PATH (Debian: apt-get install qemu-system-x86)")]
    NoQemu,
    /// No kernel image with the modules.
    #[error("no kernel to boot: {0} (Debian: apt-get install linux-image-amd64)")]
    NoKernel(String),
    /// The kernel lacks a module.
    #[error("kernel {release} has no module {module} (looked in {dir})")]
    NoModule {
        /// The kernel's release.
        release: String,
        /// The module.
        module: String,
        /// Where it was looked for.
        dir: String,
    },
    /// The share directory.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// `vng` did not start.
    #[error("could not start {vng}: {source}")]
    Spawn {
        /// The program.
        vng: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The guest never ran the command, or died before it ended.
    #[error(
        "the VM ended (vng exit {vng_status}) without the command's exit status; its console's last lines:\n{tail}"
    )]
    NoStatus {
        /// vng's own exit status.
        vng_status: i32,
        /// The end of the console output.
        tail: String,
    },
    /// The VM ran past its time limit and was killed.
    #[error("the VM ran past {0:?} and was stopped")]
    Timeout(Duration),
}

/// A kernel and the means to boot it.
#[derive(Debug, Clone)]
pub struct Vm {
    vng: PathBuf,
    kernel: PathBuf,
    release: String,
    /// Guest memory, MiB (default 2048).
    pub memory_mib: u64,
    /// Guest CPUs (default 1: one CPU keeps the block layer's per-CPU paths as on one core).
    pub cpus: u32,
    /// Kill the VM after this long (default 30 min).
    pub timeout: Duration,
    /// Use KVM (default: only when [`KVM_VAR`] is `1`). A `/dev/kvm` that opens is no proof:
    /// on this project's machines it opens, and QEMU then dies setting the CPU's MSRs.
    pub kvm: bool,
}

/// What one run gave.
#[derive(Debug, Clone)]
pub struct VmOutput {
    /// The command's exit status in the guest.
    pub status: i32,
    /// The guest's console (the command's stdout and stderr among it).
    pub console: String,
    /// Wall time from starting QEMU to its end.
    pub wall: Duration,
}

impl Vm {
    /// Find `vng`, QEMU and a kernel whose modules directory has every module of `modules`
    /// (names without `.ko`, e.g. `f2fs`).
    pub fn find(modules: &[&str]) -> Result<Vm, VmError> {
        let vng = match std::env::var_os(VNG_VAR) {
            Some(v) => PathBuf::from(v),
            None => on_path("vng").ok_or(VmError::NoVng)?,
        };
        if !vng.is_file() {
            return Err(VmError::NoVng);
        }
        on_path("qemu-system-x86_64").ok_or(VmError::NoQemu)?;
        let (kernel, release) = match std::env::var_os(KERNEL_VAR) {
            Some(k) => {
                let k = PathBuf::from(k);
                let rel = release_of(&k).ok_or_else(|| {
                    VmError::NoKernel(format!("{KERNEL_VAR}={}: not named vmlinuz-RELEASE", k.display()))
                })?;
                (k, rel)
            }
            None => newest_kernel(Path::new("/boot"), modules)?,
        };
        for m in modules {
            has_module(&release, m)?;
        }
        let kvm = std::env::var(KVM_VAR).as_deref() == Ok("1");
        Ok(Vm { vng, kernel, release, memory_mib: 2048, cpus: 1, timeout: Duration::from_secs(1800), kvm })
    }

    /// The kernel's release (`6.1.0-57-amd64`).
    pub fn release(&self) -> &str {
        &self.release
    }

    /// The kernel image booted.
    pub fn kernel(&self) -> &Path {
        &self.kernel
    }

    /// Boot, run `argv` as root with `share` (a host directory, created if missing) writable
    /// at the same path in the guest, and power off. Files the command writes under `share`
    /// are on the host when this returns. A non-zero status of the command is returned, not an
    /// error; an error means the VM itself failed (with its console's last lines).
    pub fn run(&self, argv: &[String], share: &Path) -> Result<VmOutput, VmError> {
        std::fs::create_dir_all(share).map_err(io(share))?;
        let share = share.canonicalize().map_err(io(share))?;
        let status_file = share.join(".vm-exit-status");
        let _ = std::fs::remove_file(&status_file);
        let script = share.join(".vm-run.sh");
        let mut text = String::from("#!/bin/sh\n# written by flashlab-vm: the command, then its exit status\n");
        text.push_str(&argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "));
        text.push_str(&format!("\necho $? > {}\n", quote(&status_file.to_string_lossy())));
        std::fs::write(&script, text).map_err(io(&script))?;
        let console_path = share.join(".vm-console.log");
        let console = std::fs::File::create(&console_path).map_err(io(&console_path))?;
        let mut cmd = Command::new(&self.vng);
        cmd.arg("--run")
            .arg(&self.kernel)
            .args(["--user", "root", "--memory"])
            .arg(format!("{}M", self.memory_mib))
            .args(["--cpus", &self.cpus.to_string()])
            .arg(format!("--rwdir={}", share.display()))
            .args(["--exec", &format!("sh {}", quote(&script.to_string_lossy()))]);
        if !self.kvm {
            cmd.arg("--disable-kvm");
        }
        // vng runs virtme-run from its own directory.
        if let Some(dir) = self.vng.parent() {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let mut dirs = vec![dir.to_path_buf()];
            dirs.extend(std::env::split_paths(&path));
            if let Ok(p) = std::env::join_paths(dirs) {
                cmd.env("PATH", p);
            }
        }
        cmd.stdin(Stdio::null()).stdout(console.try_clone().map_err(io(&console_path))?).stderr(console);
        let t0 = Instant::now();
        let mut child = cmd.spawn().map_err(|source| VmError::Spawn { vng: self.vng.clone(), source })?;
        let vng_status = loop {
            if let Some(s) = child.try_wait().map_err(io(&self.vng))? {
                break s.code().unwrap_or(-1);
            }
            if t0.elapsed() > self.timeout {
                let _ = child.kill();
                let _ = child.wait();
                return Err(VmError::Timeout(self.timeout));
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let wall = t0.elapsed();
        let mut console = String::new();
        if let Ok(mut f) = std::fs::File::open(&console_path) {
            let _ = f.read_to_string(&mut console);
        }
        let status = std::fs::read_to_string(&status_file).ok().and_then(|s| s.trim().parse::<i32>().ok());
        match status {
            Some(status) => Ok(VmOutput { status, console, wall }),
            None => Err(VmError::NoStatus { vng_status, tail: tail(&console, 20) }),
        }
    }
}

fn io(p: &Path) -> impl FnOnce(std::io::Error) -> VmError + '_ {
    move |source| VmError::Io { path: p.to_path_buf(), source }
}

/// The last `n` lines of `s`.
pub fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// `s` quoted for sh (single quotes; a single quote inside closed, escaped and reopened).
fn quote(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-=:,+@%".contains(&b)) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(program)).find(|p| p.is_file())
}

/// `6.1.0-57-amd64` from `/boot/vmlinuz-6.1.0-57-amd64`.
fn release_of(kernel: &Path) -> Option<String> {
    kernel.file_name()?.to_str()?.strip_prefix("vmlinuz-").map(str::to_string)
}

/// The newest `vmlinuz-*` in `boot` whose modules include all of `modules`.
fn newest_kernel(boot: &Path, modules: &[&str]) -> Result<(PathBuf, String), VmError> {
    let rd = std::fs::read_dir(boot).map_err(|e| VmError::NoKernel(format!("{}: {e}", boot.display())))?;
    let mut found: Vec<(String, PathBuf)> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter_map(|p| release_of(&p).filter(|r| !r.ends_with(".dpkg-new")).map(|r| (r, p)))
        .collect();
    if found.is_empty() {
        return Err(VmError::NoKernel(format!("no vmlinuz-* in {}", boot.display())));
    }
    found.sort_by_key(|a| version_key(&a.0));
    let mut last_err = None;
    for (rel, path) in found.into_iter().rev() {
        match modules.iter().try_for_each(|m| has_module(&rel, m)) {
            Ok(()) => return Ok((path, rel)),
            Err(e) => last_err = Some(e),
        }
    }
    Err(last_err.expect("at least one kernel was tried"))
}

/// A release's numbers in order, for sorting (`6.1.0-57` before `6.1.0-101`).
fn version_key(rel: &str) -> Vec<u64> {
    rel.split(|c: char| !c.is_ascii_digit()).filter_map(|n| n.parse().ok()).collect()
}

/// Whether `/lib/modules/RELEASE/modules.dep` (or `modules.builtin`) names `module`.
fn has_module(release: &str, module: &str) -> Result<(), VmError> {
    let dir = format!("/lib/modules/{release}");
    let file = format!("/{module}.ko");
    let names = |f: &str| {
        std::fs::read_to_string(format!("{dir}/{f}")).ok().is_some_and(|t| {
            t.lines().any(|l| {
                let path = l.split(':').next().unwrap_or("");
                path.ends_with(&file) || path.contains(&format!("{file}."))
            })
        })
    };
    if names("modules.dep") || names("modules.builtin") {
        Ok(())
    } else {
        Err(VmError::NoModule { release: release.to_string(), module: module.to_string(), dir })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_the_shell() {
        assert_eq!(quote("/usr/bin/flashlab"), "/usr/bin/flashlab");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn kernels_sort_by_their_numbers() {
        let mut v = vec!["6.1.0-101-amd64", "6.1.0-57-amd64", "5.10.0-9-amd64"];
        v.sort_by_key(|r| version_key(r));
        assert_eq!(v, ["5.10.0-9-amd64", "6.1.0-57-amd64", "6.1.0-101-amd64"]);
        assert_eq!(release_of(Path::new("/boot/vmlinuz-6.1.0-57-amd64")).as_deref(), Some("6.1.0-57-amd64"));
        assert_eq!(release_of(Path::new("/boot/initrd.img-6.1")), None);
    }

    #[test]
    fn a_missing_module_is_named() {
        let e = has_module("0.0.0-none", "f2fs").unwrap_err().to_string();
        assert!(e.contains("f2fs") && e.contains("/lib/modules/0.0.0-none"), "{e}");
    }
}
