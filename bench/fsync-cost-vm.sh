#!/usr/bin/env bash
# F2FS's durable write on a device that takes no time, beside ext4's, in the distribution's
# kernel in a VM (this host's kernel has no F2FS): a loop device over tmpfs in the guest, fio
# 4 KiB random writes at QD1 with an fsync after each (a new, fallocated file, then the same
# file again, overwritten in place), both filesystems mounted nobarrier, and one block request
# (O_DIRECT on the loop device). Prints p50s (µs) per case, medians of REPS runs. The guest
# runs under KVM (FLASHLAB_VM_KVM=1 semantics: `vng` without --disable-kvm), so its CPU costs are
# this machine's, virtualised; ext4's figures beside bench/fsync-cost.sh's on the host say how
# far that moves them.
#
# Needs root, /dev/kvm, QEMU, virtme-ng's vng (VNG=path, else on PATH), a Debian kernel in
# /boot with the f2fs module, mkfs.f2fs, fio, python3. Not a test: timing on a shared machine.
#
#   REPS=3 VNG=/path/to/vng bench/fsync-cost-vm.sh
set -euo pipefail
REPS=${REPS:-3} SIZE=${SIZE:-16m}
VNG=${VNG:-vng}
KERNEL=${KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -1)}
SHARE=$(mktemp -d /tmp/flashlab-fsync-vm.XXXXXX)
trap 'rm -rf "$SHARE"' EXIT
cat >"$SHARE/guest.sh" <<EOF
set -eu
S=$SHARE
mkdir -p /run/fc/t /run/fc/m "\$S/out"
mount -t tmpfs -o size=600m fc /run/fc/t
dd if=/dev/zero of=/run/fc/t/img bs=1M count=320 status=none
modprobe loop 2>/dev/null || true
modprobe f2fs
L=\$(losetup --find --show /run/fc/t/img)
run() { fio --name=\$1 --filename=\$2 --rw=randwrite --bs=4k --size=$SIZE --ioengine=psync --output-format=json --output="\$S/out/\$1-\$r.json" "\${@:3}" >/dev/null; }
for r in \$(seq $REPS); do
  run raw "\$L" --direct=1 --offset=272m
  mkfs.ext4 -q -F "\$L" 256M; mount -o barrier=0 "\$L" /run/fc/m
  run ext4-nb /run/fc/m/f --fsync=1; run ext4-nb-over /run/fc/m/f --fsync=1; umount /run/fc/m
  mkfs.f2fs -q -f "\$L" >/dev/null; mount -t f2fs -o nobarrier "\$L" /run/fc/m
  run f2fs-nb /run/fc/m/f --fsync=1; run f2fs-nb-over /run/fc/m/f --fsync=1; umount /run/fc/m
done
losetup -d "\$L"
echo "guest \$(uname -r), load \$(cut -d' ' -f1-3 /proc/loadavg)" > "\$S/out/guest.txt"
EOF
echo "host load average before: $(cut -d' ' -f1-3 /proc/loadavg); kernel $KERNEL"
"$VNG" --run "$KERNEL" --user root --memory 2048M --cpus 2 --rwdir="$SHARE" --exec "sh $SHARE/guest.sh" >"$SHARE/console.log" 2>&1 || {
  tail -20 "$SHARE/console.log"; exit 1; }
echo "host load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$SHARE/out/guest.txt"
python3 - "$SHARE/out" "$REPS" <<'PY'
import json, sys, statistics
out, reps = sys.argv[1], int(sys.argv[2])
print(f"{'case':<14}{'write p50':>10}{'fsync p50':>11}{'fsync p90':>11}{'fsync p99':>11}   (µs, medians of {reps} runs)")
for name in ['raw', 'ext4-nb', 'ext4-nb-over', 'f2fs-nb', 'f2fs-nb-over']:
    w, s = [], {q: [] for q in ['50.000000', '90.000000', '99.000000']}
    for r in range(1, reps + 1):
        j = json.load(open(f"{out}/{name}-{r}.json"))['jobs'][0]
        w.append(j['write']['clat_ns']['percentile']['50.000000'] / 1e3)
        sl = j.get('sync', {}).get('lat_ns', {})
        for q in s:
            if sl.get('percentile'):
                s[q].append(sl['percentile'][q] / 1e3)
    row = f"{name:<14}{statistics.median(w):>10.2f}"
    if s['50.000000']:
        row += ''.join(f"{statistics.median(s[q]):>11.2f}" for q in s)
    print(row)
PY
