#!/bin/sh
# Speed of `flashlab life` (issue 10, acceptance 4): a year of the heavy-phone preset on the
# 16 GB default device (sim:emmc-16g), no trim, release build. The target is under 2 minutes
# of wall time. Prints the run's own output and the wall time; the result is in docs/life.md.
set -eu
cd "$(dirname "$0")/.."
cargo build --release -p flashlab >/dev/null 2>&1 || cargo build --release -p flashlab
start=$(date +%s.%N)
./target/release/flashlab life --target sim:emmc-16g --usage heavy-phone --policy "${POLICY:-none}" --duration 12months --seed 1
end=$(date +%s.%N)
echo "bench/life-speed.sh: wall time $(awk "BEGIN{printf \"%.1f\", $end - $start}") s (target: under 120 s) on $(nproc) cores"
