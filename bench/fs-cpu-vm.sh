#!/usr/bin/env bash
# What F2FS's write() and fsync() cost the CPU, beside ext4's, measured where F2FS exists: the
# distribution's kernel in a VM (this host's kernel has no F2FS). Both filesystems run in the
# same VM, interleaved, on a loop device over tmpfs (a device that takes no time), mounted
# nobarrier; fio writes 4 KiB at random at QD1 with an fsync after each. The VM runs in TCG
# (no KVM here), so its times are not this machine's; the ratio is the result:
#
#   F2FS (write + fsync) CPU / ext4 (write + fsync) CPU: the kernel CPU of fio's thread per I/O
#   (fio's sys_cpu; jbd2's thread and the loop worker are not in it), less the submission of the
#   block requests each I/O caused (counted on the loop device; one costs raw - tmpfs)
#
# bench/fsync-cost.sh measures ext4's figures on this host; flashlab-simfs's `measured`
# constants scale them by these ratios for F2FS (docs/breakdown.md).
#
# Cases, each on a fresh fallocated 16 MiB file unless "over":
#   tmpfs        4 KiB writes to a file in tmpfs: a write system call with nothing behind it
#   raw          O_DIRECT 4 KiB writes on the loop device itself: one request's round trip,
#                the system call included (raw - tmpfs: the request alone)
#   ext4-nb      ext4 nobarrier: each fsync commits a jbd2 transaction (data, log, commit)
#   ext4-nb-over the same file again: the fsync writes the data block, commits nothing
#   f2fs-nb      F2FS nobarrier (Android's /data options): data block and its node block
#   f2fs-nb-over the same file again: F2FS updates in place under fsync (ipu_policy)
#
#   REPS=3 bench/fs-cpu-vm.sh [OUT_DIR]       (needs root, vng (FLASHLAB_VNG), qemu, fio,
#                                              mkfs.f2fs, mkfs.ext4, python3, a kernel in /boot
#                                              with f2fs and loop modules)
# Not a test: timing on a shared machine; say the load average beside the figures.
set -euo pipefail
REPS=${REPS:-3} SIZE=${SIZE:-16m}
if [ "${1:-}" = "--guest" ]; then
  OUT=$2
  modprobe loop 2>/dev/null || true
  modprobe f2fs
  W=$(mktemp -d /tmp/fscpu.XXXXXX)
  mkdir -p "$W/t" "$W/m"
  mount -t tmpfs -o size=700m fscpu "$W/t"
  dd if=/dev/zero of="$W/t/dev.img" bs=1M count=600 status=none
  LOOP=$(losetup --find --show "$W/t/dev.img")
  DEV=${LOOP#/dev/}
  writes() { awk '{print $5}' "/sys/block/$DEV/stat"; }
  run() { # NAME FILE [fio args]: fio's JSON, and the device's write requests during it
    local name=$1 file=$2; shift 2
    local before; before=$(writes)
    fio --name="$name" --filename="$file" --rw=randwrite --bs=4k --size="$SIZE" --ioengine=psync \
      --randseed=1 --output-format=json --output="$OUT/$name-$r.json" "$@" >/dev/null
    echo "$(( $(writes) - before ))" > "$OUT/$name-$r.requests"
  }
  for r in $(seq "$REPS"); do
    rm -f "$W/t/f"; run tmpfs "$W/t/f"
    run raw "$LOOP" --direct=1 --offset=520m
    mkfs.ext4 -q -F "$LOOP" 512M
    mount -o barrier=0 "$LOOP" "$W/m"
    run ext4-nb "$W/m/f" --fsync=1
    run ext4-nb-over "$W/m/f" --fsync=1
    umount "$W/m"
    mkfs.f2fs -q -f "$LOOP" >/dev/null
    mount -t f2fs -o nobarrier,background_gc=on,inline_data,noatime "$LOOP" "$W/m"
    run f2fs-nb "$W/m/f" --fsync=1
    run f2fs-nb-over "$W/m/f" --fsync=1
    umount "$W/m"
  done
  cat /proc/loadavg > "$OUT/loadavg"
  uname -r > "$OUT/kernel"
  losetup -d "$LOOP"
  umount "$W/t"
  exit 0
fi

OUT=$(realpath -m "${1:-/tmp/flashlab-fs-cpu-vm}")
mkdir -p "$OUT"
VNG=${FLASHLAB_VNG:-vng}
KERNEL=$(ls -1 /boot/vmlinuz-* | sort -V | tail -1)
SELF=$(realpath "$0")
echo "host load average before: $(cut -d' ' -f1-3 /proc/loadavg); kernel in the VM: $KERNEL (TCG)"
PATH="$(dirname "$(command -v "$VNG")"):$PATH" "$VNG" --run "$KERNEL" --user root --memory 2048M --cpus 1 \
  --disable-kvm --rwdir="$OUT" --exec "REPS=$REPS SIZE=$SIZE bash $SELF --guest $OUT" > "$OUT/console.log" 2>&1 \
  || { tail -20 "$OUT/console.log"; exit 1; }
echo "host load average after: $(cut -d' ' -f1-3 /proc/loadavg); guest's: $(cat "$OUT/loadavg")"
python3 - "$OUT" "$REPS" <<'EOF'
import json, sys, statistics as st
out, reps = sys.argv[1], int(sys.argv[2])
def runs(name):
    for r in range(1, reps + 1):
        j = json.load(open(f"{out}/{name}-{r}.json"))['jobs'][0]
        yield j, int(open(f"{out}/{name}-{r}.requests").read())
def med(name, f):
    v = [f(j, n) for j, n in runs(name)]
    return st.median(v), min(v), max(v)
ios = lambda j: j['write']['total_ios']
# Kernel CPU of fio's own thread per I/O (write + fsync system calls; jbd2's thread and the
# loop worker are not in it), µs.
sys_us = lambda j, n: j['sys_cpu'] / 100 * j['job_runtime'] * 1e3 / ios(j)
reqs = lambda j, n: n / ios(j)
p50w = lambda j, n: j['write']['clat_ns']['percentile']['50.000000'] / 1e3
p50f = lambda j, n: j['sync']['lat_ns']['percentile']['50.000000'] / 1e3
tm, raw = med('tmpfs', sys_us), med('raw', sys_us)
req = raw[0] - tm[0]
print(f"kernel CPU per I/O: tmpfs write {tm[0]:.1f} µs, raw O_DIRECT write {raw[0]:.1f} µs "
      f"(runs {raw[1]:.1f}-{raw[2]:.1f}): one request's submission {req:.1f} µs")
print(f"{'case':<14}{'write p50':>10}{'fsync p50':>11}{'req/io':>8}{'sys CPU/io':>12}{'fs CPU/io':>11}   (µs in the VM, medians of {reps} runs)")
fs = {}
for name in ['ext4-nb', 'ext4-nb-over', 'f2fs-nb', 'f2fs-nb-over']:
    c, n = med(name, sys_us), med(name, reqs)[0]
    fs[name] = c[0] - n * req
    print(f"{name:<14}{med(name, p50w)[0]:>10.1f}{med(name, p50f)[0]:>11.1f}{n:>8.2f}{c[0]:>12.1f}{fs[name]:>11.1f}"
          f"   (sys CPU runs {c[1]:.1f}-{c[2]:.1f})")
for name in ['f2fs-nb', 'f2fs-nb-over']:
    print(f"ratio {name} / ext4-nb-over (write + fsync CPU, requests' submission excluded): {fs[name] / fs['ext4-nb-over']:.2f}")
EOF
