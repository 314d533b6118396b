#!/usr/bin/env bash
# What one request costs crossing a shared-storage layer, on this machine (docs/fill.md):
#
#   base     fio 4 KiB random writes, QD1, psync, on a file in a tmpfs (no device behind it)
#   fuse     the same on `flashlab serve`'s device file (a FUSE file in direct-I/O mode) over the
#            zero-latency profile: every request goes to the user-space server and back
#   overlay  the same on a file in an overlayfs mount whose layers are on the tmpfs: an
#            in-kernel stacked file system, as sdcardfs and esdfs are (this kernel has neither)
#
# The layer's cost is its p50 minus base's p50 (medians of REPS interleaved runs). Needs root,
# /dev/fuse, fio, jq, and a release build (cargo build --release -p flashlab).
# Not a test: timing on a shared machine.
#
#   RUNTIME=5 REPS=3 bench/fuse-cost.sh
source "$(dirname "$0")/serve/common.sh"
RT=${RUNTIME:-5} REPS=${REPS:-3} SIZE=${SIZE:-64m}
T=$WORK/tmpfs
mkdir -p "$T"
mount -t tmpfs -o size=512m flashlab-bench "$T"
mkdir -p "$T/lower" "$T/upper" "$T/work" "$WORK/ovl"
mount -t overlay flashlab-bench-ovl -o "lowerdir=$T/lower,upperdir=$T/upper,workdir=$T/work" "$WORK/ovl"
cleanup_layers() {
  mountpoint -q "$WORK/ovl" && umount "$WORK/ovl" || true
  mountpoint -q "$T" && umount "$T" || true
  cleanup
}
trap cleanup_layers EXIT
head -c "$SIZE" /dev/zero >"$T/base.dat" 2>/dev/null || dd if=/dev/zero of="$T/base.dat" bs=1M count=64 status=none
cp "$T/base.dat" "$WORK/ovl/ovl.dat"

fio1() {  # FILE [fio args]: p50 of 4 KiB random writes at QD1 (µs)
  local f=$1; shift
  fio --name=j --filename="$f" --rw=randwrite --bs=4k --iodepth=1 --ioengine=psync --size="$SIZE" \
      --runtime="$RT" --time_based --randrepeat=0 --output-format=json "$@" |
    jq -r '.jobs[0].write.clat_ns.percentile."50.000000" / 1000'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg); ${RT}s per run, $REPS reps"
"$FLASHLAB" serve --target "sim:$ROOT/bench/serve/zero-latency.toml" --size "$SIZE" "$FUSEDIR" >"$WORK/server.out" 2>"$WORK/server.err" &
SERVER_PID=$!
for _ in $(seq 300); do grep -q '^ready' "$WORK/server.out" 2>/dev/null && break; sleep 0.1; done
grep -q '^ready' "$WORK/server.out" || { echo "flashlab serve did not start:" >&2; cat "$WORK/server.err" >&2; exit 1; }
for rep in $(seq "$REPS"); do
  echo "base $(fio1 "$T/base.dat")" | tee -a "$WORK/runs" >&2
  echo "fuse $(fio1 "$FUSEDIR/device" --direct=1)" | tee -a "$WORK/runs" >&2
  echo "overlay $(fio1 "$WORK/ovl/ovl.dat")" | tee -a "$WORK/runs" >&2
done
B=$(awk '$1 == "base" {print $2}' "$WORK/runs" | median)
F=$(awk '$1 == "fuse" {print $2}' "$WORK/runs" | median)
O=$(awk '$1 == "overlay" {print $2}' "$WORK/runs" | median)
printf '%-10s %10s %14s\n' path p50_us 'minus base'
printf '%-10s %10.2f %14s\n' tmpfs "$B" -
printf '%-10s %10.2f %14.2f\n' fuse "$F" "$(echo "$F - $B" | bc -l)"
printf '%-10s %10.2f %14.2f\n' overlayfs "$O" "$(echo "$O - $B" | bc -l)"
echo "(fio 4 KiB randwrite QD1 psync p50, median of $REPS; fuse: flashlab serve's device file, zero-latency profile, O_DIRECT)"
