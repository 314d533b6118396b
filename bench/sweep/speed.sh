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
    # The Python package: local 1 and 2 threads and Ray with 2 worker CPUs, the same build of
    # the package for all three (compare these rows with each other). One Ray instance for all
    # repeats: its start-up is not the sweep's.
    "$py" - "$spec" "$work" "$repeats" "$work/probe/results.csv" <<'PY'
import filecmp, shutil, sys, time
import ray, flashlab
spec, work, repeats, ref = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def best(**kw):
    b = None
    for _ in range(repeats):
        shutil.rmtree(f"{work}/py", ignore_errors=True)
        t = time.monotonic(); r = flashlab.sweep(spec, f"{work}/py", **kw); t = time.monotonic() - t
        assert filecmp.cmp(f"{work}/py/results.csv", ref, shallow=False), f"{kw}: results.csv differs from the CLI's"
        b = t if b is None else min(b, t)
    return b, len(r)
t1, n = best(threads=1)
t2, _ = best(threads=2)
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
tr, _ = best(backend="ray")
for name, t in [("python, 1 thread", t1), ("python, 2 threads", t2), ("python, ray 2 workers", tr)]:
    print(f"{name:<22} {t:8.2f} {n / t:10.2f} {t1 / t:8.2f}")
print("python rows: results.csv identical to the CLI's for all three")
PY
else
    echo "python rows: skipped (set FLASHLAB_PYTHON to a python3 with the flashlab package and ray)"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); best of $repeats runs each; $n cases of $spec"
