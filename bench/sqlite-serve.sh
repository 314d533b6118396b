#!/usr/bin/env bash
# flashlab sqlite on ext4 on a `flashlab serve` device (the table in docs/sqlite.md, "On a serve
# device"): serve the profile with --attach, mkfs.ext4 without discard or lazy initialisation
# (nothing writes in the background), mount, run flashlab sqlite there (its device counts then
# come from the simulator's stats.json), unmount, stop the server (its final report follows).
# Not a test: the latencies are real time on a shared machine.
#
#   bench/sqlite-serve.sh PROFILE SIZE [flashlab sqlite options...]
#   e.g. bench/sqlite-serve.sh nexus7-2012 512M --modes delete,truncate,persist,wal --transactions 100
# FLASHLAB_BIN overrides the binary (default target/release/flashlab); MKFS_EXTRA adds mkfs.ext4
# options (e.g. MKFS_EXTRA="-O fast_commit").
source "$(dirname "$0")/serve/common.sh"
FLASHLAB=${FLASHLAB_BIN:-$FLASHLAB}
PROFILE=$1 SIZE=$2
shift 2
start_server --target "sim:$PROFILE" --size "$SIZE"
# shellcheck disable=SC2086
mkfs.ext4 -q -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 ${MKFS_EXTRA:-} "$LOOPDEV"
mount "$LOOPDEV" "$MNT"
"$FLASHLAB" sqlite --target "$MNT" "$@"
umount "$MNT"
stop_server
