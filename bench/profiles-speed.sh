#!/usr/bin/env bash
# Wall time of `flashlab profiles` (issue 19: under 50 ms): RUNS runs (default 30) of the
# release binary, min / median / max in ms. Timing is only meaningful on a quiet machine;
# tests/packaging.rs bounds CPU time and peak memory instead.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-30}
BIN=${FLASHLAB_BIN:-target/release/flashlab}
[ -n "${FLASHLAB_BIN:-}" ] || cargo build --release -q -p flashlab
"$BIN" profiles >/dev/null # warm the page cache
times=()
for _ in $(seq "$RUNS"); do
    t0=$(date +%s%N)
    "$BIN" profiles >/dev/null
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
done
printf '%s\n' "${times[@]}" | sort -n | awk -v runs="$RUNS" '
    { t[NR] = $1 }
    END { printf "flashlab profiles, %d runs: min %.1f ms, median %.1f ms, max %.1f ms (load %s)\n",
          runs, t[1] / 1000, t[int((NR + 1) / 2)] / 1000, t[NR] / 1000, load }' load="$(cut -d' ' -f1 /proc/loadavg)"
