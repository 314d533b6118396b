#!/usr/bin/env bash
# What the host spends on one durable 4 KiB write (write + fsync) when the device takes no
# time: ext4 on a loop device over a file in tmpfs (the loop worker copies pages in memory; a
# flush is an fsync of a tmpfs file, which does nothing). Everything fio measures is then this
# machine's kernel: the system calls, ext4 and jbd2, the block layer, the loop worker and the
# wake-ups between them (docs/breakdown.md, "One durable write, part by part").
#
#   tmpfs         fio 4 KiB random writes, QD1, psync, on a file in tmpfs: a write system
#                 call with no filesystem or device behind it
#   raw           the same with O_DIRECT on the loop device itself: one block request
#                 (block layer + loop worker + completion), no filesystem
#   ext4          fio --fsync=1 on a new (fallocated) file in ext4 on the loop device, default
#                 mount (barriers): every fsync commits a jbd2 transaction (data, log blocks,
#                 preflush, commit block, post-flush)
#   ext4-nb       the same mounted nobarrier: the commit without its two flushes
#   ext4-nb-over  nobarrier, second run over the same file (fio overwrites in place): the
#                 fsync writes the data block and commits nothing
#
# Prints p50/p90/p99 (µs) of the write call and of the fsync call per case, each the median over
# REPS interleaved runs, and the load average. Needs root, fio, losetup, mkfs.ext4, python3.
# Not a test: timing on a shared machine.
#
#   REPS=5 SIZE=16m [OUT=DIR] bench/fsync-cost.sh     (OUT: keep fio's JSON there)
set -euo pipefail
REPS=${REPS:-5} SIZE=${SIZE:-16m}
WORK=$(mktemp -d /tmp/flashlab-fsync-cost.XXXXXX)
LOOP=
cleanup() {
  mountpoint -q "$WORK/m" && umount "$WORK/m" || true
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  mountpoint -q "$WORK/t" && umount "$WORK/t" || true
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/t" "$WORK/m" "$WORK/out"
mount -t tmpfs -o size=600m flashlab-fsync-cost "$WORK/t"
dd if=/dev/zero of="$WORK/t/dev.img" bs=1M count=320 status=none
LOOP=$(losetup --find --show "$WORK/t/dev.img")
# ext4 on the first 256 MiB; the raw case writes past it, from 272 MiB on.
mkfs.ext4 -q -F "$LOOP" 256M
echo "kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "zero-latency device: $LOOP over tmpfs, write cache: $(cat /sys/block/${LOOP#/dev/}/queue/write_cache)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

fio_run() { # NAME FILE [extra fio args]
  local name=$1 file=$2; shift 2
  fio --name="$name" --filename="$file" --rw=randwrite --bs=4k --size="$SIZE" --ioengine=psync \
    --output-format=json --output="$WORK/out/$name-$r.json" "$@" >/dev/null
}
for r in $(seq "$REPS"); do
  rm -f "$WORK/t/f"; fio_run tmpfs "$WORK/t/f"
  fio_run raw "$LOOP" --direct=1 --offset=272m
  mount "$LOOP" "$WORK/m"; rm -f "$WORK/m/f"; fio_run ext4 "$WORK/m/f" --fsync=1; umount "$WORK/m"
  mount -o barrier=0 "$LOOP" "$WORK/m"
  rm -f "$WORK/m/f"; fio_run ext4-nb "$WORK/m/f" --fsync=1
  fio_run ext4-nb-over "$WORK/m/f" --fsync=1
  umount "$WORK/m"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "${OUT:-}" ] && mkdir -p "$OUT" && cp "$WORK"/out/*.json "$OUT"/
python3 - "$WORK/out" "$REPS" <<'EOF'
import json, sys, statistics
out, reps = sys.argv[1], int(sys.argv[2])
def pct(d, q):
    return d['percentile'][q] / 1e3
print(f"{'case':<14}{'write p50':>10}{'p90':>8}{'p99':>9}{'fsync p50':>11}{'p90':>8}{'p99':>9}   (µs, medians of {reps} runs)")
for name in ['tmpfs', 'raw', 'ext4', 'ext4-nb', 'ext4-nb-over']:
    w = {q: [] for q in ['50.000000', '90.000000', '99.000000']}
    s = {q: [] for q in w}
    for r in range(1, reps + 1):
        j = json.load(open(f"{out}/{name}-{r}.json"))['jobs'][0]
        for q in w:
            w[q].append(pct(j['write']['clat_ns'], q))
            sl = j.get('sync', {}).get('lat_ns', {})
            if sl.get('percentile'):
                s[q].append(pct(sl, q))
    row = f"{name:<14}" + ''.join(f"{statistics.median(w[q]):>{n}.2f}" for q, n in zip(w, [10, 8, 9]))
    if s['50.000000']:
        row += ''.join(f"{statistics.median(s[q]):>{n}.2f}" for q, n in zip(s, [11, 8, 9]))
    print(row)
# The spread of one block request (the raw case): its quantile function divided by its median,
# as a profile's `host.host_jitter` takes it.
qs = ['1.000000', '5.000000', '10.000000', '20.000000', '50.000000', '80.000000', '90.000000', '95.000000', '99.000000', '99.900000']
med = {q: statistics.median(json.load(open(f"{out}/raw-{r}.json"))['jobs'][0]['write']['clat_ns']['percentile'][q] for r in range(1, reps + 1)) for q in qs}
print("raw request quantiles / median: host_jitter = [" + ", ".join(f"[{float(q) / 100:g}, {med[q] / med['50.000000']:.3g}]" for q in qs) + "]")
EOF
