#!/usr/bin/env bash
# ext4 with and without write barriers on a served device with a volatile write cache: a
# burst of file writes, each fsync'ed (a file counts as written once its fsync returned), power
# off in the middle of it, then mount (journal replay), count the fsync'ed files that came back
# intact, unmount and `e2fsck -fn`. The power-off keeps the device dead (EIO) until
# the filesystem is gone, as a real power loss takes the host's page cache with it.
# Not a test: the outcome depends on timing.
#
#   bench/serve/powercut-ext4.sh [PROFILE] [SIZE]     (default: nvme-256g, whose write buffer
#                                                      is 64 MiB, served at 1 GiB)
source "$(dirname "$0")/common.sh"
PROFILE=${1:-nvme-256g} SIZE=${2:-1g} BURST=${BURST:-5}
echo "profile $PROFILE, $SIZE, volatile cache; burst of ${BURST}s of fsync'ed 64 KiB files, power off, e2fsck -fn"
for mode in barrier nobarrier; do
  opts=barrier=1; [ $mode = nobarrier ] && opts=barrier=0
  start_server --target "sim:$PROFILE" --size "$SIZE" --volatile-cache
  mkfs.ext4 -q -E nodiscard "$LOOPDEV"
  mount -o "$opts" "$LOOPDEV" "$MNT"
  mkdir "$MNT/d"
  sync
  # The writer: numbered 64 KiB files whose content is derived from their number, fsync'ed.
  ( i=0; while :; do
      head -c 65536 /dev/zero | tr '\0' "$(printf '\\%03o' $((i % 200 + 32)))" |
        dd of="$MNT/d/f$i" bs=64k conv=fsync status=none && echo "$i" >>"$WORK/written"
      i=$((i + 1)); done ) 2>/dev/null &
  WRITER=$!
  sleep "$BURST"
  echo poweroff >"$FUSEDIR/.ctl"
  kill "$WRITER" 2>/dev/null; wait "$WRITER" 2>/dev/null || true
  umount -l "$MNT"
  sleep 1
  echo poweron >"$FUSEDIR/.ctl"
  blockdev --flushbufs "$LOOPDEV"
  written=$(wc -l <"$WORK/written"); rm -f "$WORK/written"
  lost=$(jq .power.lost_bytes "$FUSEDIR/stats.json")
  intact=0 bad=0 missing=0 mounted=yes
  if mount "$LOOPDEV" "$MNT" 2>/dev/null; then   # replays the journal, as after a real crash
    for i in $(seq 0 $((written - 1))); do
      f="$MNT/d/f$i"
      if [ ! -e "$f" ]; then missing=$((missing + 1)); continue; fi
      want=$(head -c 65536 /dev/zero | tr '\0' "$(printf '\\%03o' $((i % 200 + 32)))" | md5sum)
      if [ "$(md5sum <"$f")" = "$want" ]; then intact=$((intact + 1)); else bad=$((bad + 1)); fi
    done
    umount "$MNT"
  else
    missing=$written mounted="no (mount failed)"
  fi
  set +e
  e2fsck -fn "$LOOPDEV" >"$WORK/fsck.txt" 2>&1; rc=$?
  set -e
  problems=$(grep -cvE '^(Pass [0-9]|e2fsck [0-9]|/dev/loop|$)' "$WORK/fsck.txt" || true)
  echo "$mode: $written files fsync'ed, power off lost $lost bytes; remount: $mounted; fsync'ed files intact $intact, damaged $bad, missing $missing; e2fsck -fn exit $rc, $problems problem lines"
  sed -n '1,12p' "$WORK/fsck.txt" | sed 's/^/    /'
  stop_server >/dev/null
done
