#!/usr/bin/env bash
# This machine's block stack, timed on a device that takes no time: a loop device over a file in
# tmpfs (the loop worker copies pages in memory; no disk behind it). `flashlab breakdown` traces
# it (submit→Q, Q2D, D2C, C→user per request); its QD1 medians are the host's cost per request.
# Then each simulated device class runs with those costs, scaled to its CPU, instead of the
# profile's constants (docs/breakdown.md has the results and the scale factors' source).
#
# Needs root, tracefs, losetup, and a release build (cargo build --release -p flashlab).
# Not a test: timing on a shared machine.
#
#   IOS=5000 bench/host-cost.sh [PROFILE:SCALE ...]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FLASHLAB=$ROOT/target/release/flashlab
IOS=${IOS:-5000}
CLASSES=${*:-nexus7-2012:10 emmc-5.1:4 pixel-2016:4 ufs-2.1:3 nvme-256g:1}
WORK=$(mktemp -d /tmp/flashlab-host-cost.XXXXXX)
LOOP=
cleanup() {
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  mountpoint -q "$WORK/t" && umount "$WORK/t" || true
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/t"
mount -t tmpfs -o size=160m flashlab-host-cost "$WORK/t"
dd if=/dev/zero of="$WORK/t/dev.img" bs=1M count=128 status=none
LOOP=$(losetup --find --show "$WORK/t/dev.img")
echo "kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "zero-latency device: $LOOP over $WORK/t/dev.img (tmpfs), scheduler $(cat /sys/block/${LOOP#/dev/}/queue/scheduler)"
"$FLASHLAB" breakdown --target "$LOOP" --destroy-data --iodepth 1,32 --ios "$IOS" --size 64m --json "$WORK/host.json"
cp "$WORK/host.json" "${OUT:-/tmp/flashlab-host-cost.json}"
echo
for c in $CLASSES; do
  p=${c%%:*} s=${c##*:}
  echo "=== sim:$p with this machine's host costs x $s"
  "$FLASHLAB" breakdown --target "sim:$p" --host-cost "$WORK/host.json" --cpu-scale "$s" --ios "$IOS" 2>/dev/null |
    sed -n '/^note: model/p; /^summary/,$p'
done
