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
fio_json "$MNT/file" randwrite 4k 1 1 1g >/dev/null   # lay the file out
echo "ext4 file, QD32:       $(fio_json "$MNT/file" randwrite 4k 32 "$RT" 1g | summary)"
umount "$MNT"
stop_server
