#!/usr/bin/env bash
# Throughput ceiling of `flashlab serve`: the zero-latency profile served in real time, fio
# 4 KiB random writes at QD32 (io_uring, O_DIRECT) on a file in ext4 on the loop device, and on
# the raw loop device; QD1 latency on the raw device is the fixed per-request overhead.
# Not a test: timing on a shared machine.
#
#   bench/serve/ceiling.sh [--threads N]
source "$(dirname "$0")/common.sh"
RT=${RUNTIME:-10}
start_server --target "sim:$ROOT/bench/serve/zero-latency.toml" "$@"
summary() { jq -r '.jobs[0].write as $w | "\($w.iops | floor) IOPS, p50 \($w.clat_ns.percentile."50.000000" / 1000) us, p99 \($w.clat_ns.percentile."99.000000" / 1000) us"'; }
echo "raw loop device, QD1:  $(fio_json "$LOOPDEV" randwrite 4k 1 "$RT" 1g | summary)"
echo "raw loop device, QD32: $(fio_json "$LOOPDEV" randwrite 4k 32 "$RT" 1g | summary)"
mkfs.ext4 -q -E nodiscard "$LOOPDEV"
mount "$LOOPDEV" "$MNT"
# Lay the file out with real data: fio would fallocate it, and writes into unwritten extents
# take the ext4 journal on every request.
dd if=/dev/zero of="$MNT/file" bs=1M count=1024 oflag=direct conv=fsync status=none
echo "ext4 file, QD32:       $(fio_json "$MNT/file" randwrite 4k 32 "$RT" 1g | summary)"
umount "$MNT"
awk -v t="$(getconf CLK_TCK)" -v n="$(jq '.counters.host_writes + .counters.host_reads' "$FUSEDIR/stats.json")" \
  '{ s = ($14 + $15) / t; printf "server CPU: %.1f s for %d requests, %.1f us per request\n", s, n, s / n * 1e6 }' \
  "/proc/$SERVER_PID/stat"
stop_server
