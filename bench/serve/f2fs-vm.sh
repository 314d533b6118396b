#!/usr/bin/env bash
# The kernel's F2FS on a simulated device, from a host whose kernel has no F2FS: boots the
# distribution's kernel in a VM (virtme-ng, as `validate-fs --fs f2fs` does; the host's
# userspace, so this checkout's flashlab, mkfs.f2fs and fio are there), serves PROFILE as a
# block device inside it (`flashlab serve --attach`), makes an F2FS on it with `mkfs.f2fs`,
# mounts it with the phone's options and runs a flashlab protocol on the mount. The results
# document and the server's final report come back to OUT.
#
#   bench/serve/f2fs-vm.sh PROFILE SIZE PROTOCOL [OUT]
#     e.g. bench/serve/f2fs-vm.sh motox-2013 16g motox-review /tmp/motox
#   MOUNT='noatime,background_gc=on,discard,inline_xattr' (default: Android's F2FS /data options)
#   SCALE=10 (serve's --time-scale: simulated seconds per real second), MEMORY=4G (the VM's),
#   BACKING=1 (the device's data in OUT/device.img on the host's disk, not in the VM's memory),
#   SKIP_GAPS_MS=50 (serve's --skip-host-gaps; 0: off)
#   FLASHLAB_VNG: virtme-ng's vng when it is not on PATH; FLASHLAB_BIN: the flashlab binary
#
# On the served device, `age` times each four-corner test on the simulated device's clock too
# (the `device_clock` of each step in age.json): the real F2FS's requests on the simulated
# phone, without the VM's own costs. That is what is compared with the model.
#
# Real time: the served device answers when the model says (divided by SCALE) and the VM runs
# in QEMU's TCG without hardware virtualisation: the Moto X review's procedure took 470 s on the
# 2 GiB copy at SCALE=1 and 334-677 s on the full 16 GB device at SCALE=10 (docs/calibration.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PROFILE=${1:?profile} SIZE=${2:?size} PROTOCOL=${3:?protocol}
OUT=$(mkdir -p "${4:-/tmp/flashlab-f2fs-vm}" && cd "${4:-/tmp/flashlab-f2fs-vm}" && pwd)
MOUNT=${MOUNT:-noatime,nosuid,nodev,background_gc=on,discard,inline_xattr,inline_data}
SCALE=${SCALE:-1} MEMORY=${MEMORY:-4G}
# A profile file is named by its absolute path (the guest sees the host's files at the same paths).
TARGET=$PROFILE; [ -f "$PROFILE" ] && TARGET=$(cd "$(dirname "$PROFILE")" && pwd)/$(basename "$PROFILE")
SIZE_ARG=; [ "$SIZE" = all ] || SIZE_ARG="--size $SIZE"
# BACKING=1: the device's data in OUT/device.img on the host's disk rather than in the VM's memory
# (a full-size phone's 16 GB); removed afterwards.
BACKING_ARG=; [ -z "${BACKING:-}" ] || BACKING_ARG="--backing $OUT/device.img --overwrite-backing"
# The device's clock skips the VM's own gaps between requests (serve --skip-host-gaps), so that
# the device-clock columns are the phone's; SKIP_GAPS_MS=0 keeps them.
SKIP_GAPS_MS=${SKIP_GAPS_MS:-50} SERVE_ARGS=
[ "$SKIP_GAPS_MS" = 0 ] || SERVE_ARGS="--skip-host-gaps $SKIP_GAPS_MS"
VNG=${FLASHLAB_VNG:-$(command -v vng || true)}
[ -x "$VNG" ] || { echo "f2fs-vm: virtme-ng's vng not found (pip install virtme-ng, or set FLASHLAB_VNG)" >&2; exit 1; }
KERNEL=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
[ -n "$KERNEL" ] || { echo "f2fs-vm: no /boot/vmlinuz-* (apt-get install linux-image-amd64)" >&2; exit 1; }
# FLASHLAB_BIN: the flashlab binary to run in the guest (default: this checkout's release build).
[ -n "${FLASHLAB_BIN:-}" ] || [ -x "$ROOT/target/release/flashlab" ] || (cd "$ROOT" && cargo build --release -p flashlab)

cat >"$OUT/guest.sh" <<GUEST
set -euo pipefail
modprobe fuse; modprobe loop; modprobe f2fs
${FLASHLAB_BIN:+export FLASHLAB_BIN=$FLASHLAB_BIN}
source "$ROOT/bench/serve/common.sh"
# The results: age.json, age.txt and age-serve.txt (the server's final report) in OUT.
start_server --target "sim:$TARGET" $SIZE_ARG --time-scale "$SCALE" $BACKING_ARG $SERVE_ARGS
mkfs.f2fs -f -q "\$LOOPDEV"
mount -t f2fs -o "$MOUNT" "\$LOOPDEV" "\$MNT"
grep " \$MNT " /proc/mounts | sed "s| \$MNT | <mount> |" > "$OUT/mount.txt"
start=\$(date +%s)
"\$FLASHLAB" age --target "\$MNT" --protocol "$PROTOCOL" --json "$OUT/age.json" > "$OUT/age.txt" 2>&1 || { cat "$OUT/age.txt"; exit 1; }
echo "protocol wall time: \$((\$(date +%s) - start)) s" >> "$OUT/age.txt"
sed -i "s|\$MNT|<the F2FS mount>|g" "$OUT/age.txt"
umount "\$MNT"
stop_server > "$OUT/age-serve.txt"
GUEST
kvm=--disable-kvm; [ "${FLASHLAB_VM_KVM:-0}" = 1 ] && kvm=
start=$(date +%s)
PATH="$(dirname "$VNG"):$PATH" "$VNG" --run "$KERNEL" $kvm --user root --memory "$MEMORY" --cpus 2 \
    --rwdir="$OUT" --exec "bash $OUT/guest.sh" 2>&1 | tail -20
echo "f2fs-vm: $PROFILE $SIZE, $PROTOCOL, mount $MOUNT, time scale $SCALE: $(( $(date +%s) - start )) s in all"
cat "$OUT/age.txt"
rm -f "$OUT/device.img"
