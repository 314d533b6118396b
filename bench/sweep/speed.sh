#!/usr/bin/env bash
# Sweep throughput on 1 and 2 local threads, and on a local Ray instance (2 CPUs), for
# docs/sweep.md. Not a test: the numbers depend on the machine and its other load, which is
# printed with them. Usage: bench/sweep/speed.sh [REPEATS]
#   FLASHLAB_PYTHON: a python3 with the flashlab package (release build: `maturin develop
#   --release` in crates/flashlab-py) and ray, for the Ray row; without it the row is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
repeats="${1:-3}"
cargo build --release -q -p flashlab
bin=target/release/flashlab
spec=bench/sweep/bench.toml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Seconds of one full sweep into a fresh directory.
run() {
    rm -rf "$work/out"
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
best() { sort -g | head -1; }

echo "machine: $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
n=$("$bin" sweep "$spec" --out "$work/probe" -j 2 | sed -n 's/.*: \([0-9]*\) cases.*/\1/p')
t1=$(for _ in $(seq "$repeats"); do run "$bin" sweep "$spec" --out "$work/out" -j 1; done | best)
t2=$(for _ in $(seq "$repeats"); do run "$bin" sweep "$spec" --out "$work/out" -j 2; done | best)
printf '%-22s %8s %10s %8s\n' backend seconds cases/s speedup
printf '%-22s %8.2f %10.2f %8s\n' "local, 1 thread" "$t1" "$(echo "$n / $t1" | bc -l)" "1.00"
printf '%-22s %8.2f %10.2f %8.2f\n' "local, 2 threads" "$t2" "$(echo "$n / $t2" | bc -l)" "$(echo "$t1 / $t2" | bc -l)"
py="${FLASHLAB_PYTHON:-}"
if [ -n "$py" ] && "$py" -c "import flashlab, ray" 2>/dev/null; then
    # One Ray instance for all repeats (its start-up is not the sweep's); 2 worker CPUs.
    tr=$("$py" - "$spec" "$work" "$repeats" <<'PY'
import sys, time, shutil, ray, flashlab
spec, work, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
best = None
for _ in range(repeats):
    shutil.rmtree(f"{work}/ray", ignore_errors=True)
    t = time.monotonic(); flashlab.sweep(spec, f"{work}/ray", backend="ray"); t = time.monotonic() - t
    best = t if best is None else min(best, t)
print(best)
PY
)
    printf '%-22s %8.2f %10.2f %8.2f\n' "ray, 2 workers" "$tr" "$(echo "$n / $tr" | bc -l)" "$(echo "$t1 / $tr" | bc -l)"
    cmp -s "$work/ray/results.csv" "$work/probe/results.csv" && echo "ray results.csv identical to the local one" \
        || { echo "ray results.csv DIFFERS from the local one"; exit 1; }
else
    echo "ray, 2 workers: skipped (set FLASHLAB_PYTHON to a python3 with the flashlab package and ray)"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); best of $repeats runs each; $n cases of $spec"
