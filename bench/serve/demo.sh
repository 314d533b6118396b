#!/usr/bin/env bash
# The README's serve session, as one script: serve sim:toy with a volatile cache, attached as a
# loop device; mkfs.ext4 on it, mount, write a 32 MiB file, delete it, fstrim, unmount, SIGINT
# (what Ctrl-C sends). Prints each step and flashlab serve's own output. Needs root, /dev/fuse,
# losetup, mkfs.ext4. FLASHLAB (default: flashlab on PATH) picks the binary.
set -euo pipefail
FLASHLAB=${FLASHLAB:-flashlab}
WORK=$(mktemp -d /tmp/flashlab-serve-demo.XXXXXX)
DEV=$WORK/dev MNT=$WORK/mnt
mkdir -p "$DEV" "$MNT"
PID=
cleanup() {
    mountpoint -q "$MNT" && umount "$MNT" || true
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill -TERM "$PID"; wait "$PID" || true; fi
    for d in $(losetup -j "$DEV/device" -O NAME -n 2>/dev/null); do losetup -d "$d" || true; done
    mountpoint -q "$DEV" && umount -l "$DEV" || true
    rm -rf "$WORK"
}
trap cleanup EXIT
"$FLASHLAB" serve --target sim:toy --attach --volatile-cache "$DEV" >"$WORK/serve.out" 2>&1 &
PID=$!
for _ in $(seq 300); do
    grep -q '^ready' "$WORK/serve.out" 2>/dev/null && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
done
grep -q '^ready' "$WORK/serve.out" || { echo "flashlab serve did not start:" >&2; cat "$WORK/serve.out" >&2; exit 1; }
LOOP=$(awk '/^attached/{print $2}' "$WORK/serve.out")
echo "+ flashlab serve --target sim:toy --attach --volatile-cache DIR (attached $LOOP)"
echo "+ mkfs.ext4 -q $LOOP; mount $LOOP MNT"
mkfs.ext4 -q -F "$LOOP"
mount "$LOOP" "$MNT"
echo "+ write a 32 MiB file, sync, delete it"
dd if=/dev/urandom of="$MNT/f" bs=1M count=32 conv=fsync status=none
rm "$MNT/f"
echo "+ fstrim -v MNT: $(fstrim -v "$MNT" | sed 's/.*: //')"
umount "$MNT"
echo "+ Ctrl-C (SIGINT) to flashlab serve"
kill -INT "$PID"
wait "$PID" || true
PID=
grep -v '^ready' "$WORK/serve.out" | sed "s|$DEV|DIR|g"
