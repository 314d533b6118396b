#!/bin/sh
# Two flashlab binaries side by side on bench/speed.sh's cases (issue 22's acceptance 3: "at
# least 2x faster than c581947"): CPU ns per simulated host write of each, in alternated
# rounds, with the ratio of their medians and a bootstrap 95 % interval for it.
#
#   bench/compare.sh OLD NEW [CASE ...]          # cases: waf wsat dftl hybrid age (default: dftl)
#   ROUNDS=10 CPU=1 bench/compare.sh /work/wt-c58/target/release/flashlab target/release/flashlab dftl hybrid
#   HYBRID_TARGET=sim:old/profiles/nexus7-2012.toml bench/compare.sh OLD NEW hybrid
#
# On a shared machine one run's CPU time moves by 5-10 % from run to run, and by more between
# minutes, so a single pair of runs cannot settle a ratio near a bound. Here each round runs
# both binaries back to back (OLD first in odd rounds, NEW first in even ones, so that a drift
# within a round favours neither), every run pinned to one CPU (`taskset -c $CPU`, the last CPU
# unless set) so that the two share its caches and never migrate. The interval resamples whole
# rounds (a round's two runs saw the same machine), 10 000 times with a fixed seed: the ratio is
# above its lower end in 97.5 % of the resamples. "ratio" is OLD / NEW: above 1, NEW is faster.
#
# Each run is bench/speed.sh with REPEAT=1 and RSS=0 (its marginal rate: the case's longer run
# minus its shorter). Results: docs/speed.md.
#
# The same binary as OLD and NEW measures the machine's own noise, the interval a real change
# must clear: on this project's 2-vCPU machine, 8 `wsat` rounds of one binary gave 1.03x, 95 %
# interval 0.83-1.14 (session 44).
set -eu
cd "$(dirname "$0")/.."
if [ "$#" -lt 2 ]; then
    echo "usage: bench/compare.sh OLD_BINARY NEW_BINARY [CASE ...]" >&2
    exit 2
fi
exec python3 - "$@" <<'EOF'
import os, random, statistics, subprocess, sys

old, new = sys.argv[1], sys.argv[2]
cases = sys.argv[3:] or ["dftl"]
known = {"waf": "sim-waf", "wsat": "wsat", "dftl": "dftl", "hybrid": "hybrid", "age": "age"}
for c in cases:
    if c not in known:
        sys.exit(f"bench/compare.sh: unknown case {c!r} (one of {', '.join(known)})")
for b in (old, new):
    if not os.access(b, os.X_OK):
        sys.exit(f"bench/compare.sh: {b} is not an executable file")
rounds = int(os.environ.get("ROUNDS", "8"))
cpu = os.environ.get("CPU", str(os.cpu_count() - 1))


def measure(binary, case):
    """CPU ns per simulated write of one speed.sh run of `case` (CPU s of the whole run for age)."""
    env = dict(os.environ, FLASHLAB_BIN=binary, REPEAT="1", RSS="0", CASES=case, ICOUNT="0")
    p = subprocess.run(["taskset", "-c", cpu, "bench/speed.sh"], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench/speed.sh on {binary} ({case}) failed: {p.stderr.strip()}")
    for line in p.stdout.splitlines():
        f = line.split()
        if case == "age" and line.startswith("age nvme-256g:"):
            return float(f[f.index("cpu,") - 2])
        if f and f[0] == known[case]:
            return float(f[3])
    sys.exit(f"bench/speed.sh printed no {case} line for {binary}:\n{p.stdout}")


def ratio_interval(a, b, n=10000):
    """Bootstrap 95 % interval of median(a) / median(b), resampling paired rounds."""
    rng = random.Random(1)
    idx = range(len(a))
    rs = []
    for _ in range(n):
        pick = [rng.choice(idx) for _ in idx]
        rs.append(statistics.median(a[i] for i in pick) / statistics.median(b[i] for i in pick))
    rs.sort()
    return rs[int(0.025 * n)], rs[int(0.975 * n) - 1]


unit = {c: ("s cpu" if c == "age" else "ns cpu/write") for c in cases}
print(f"bench/compare.sh: OLD {old}")
print(f"                  NEW {new}")
print(f"{rounds} rounds on CPU {cpu}, load average {os.getloadavg()[0]:.1f} at start")
runs = {c: ([], []) for c in cases}
for r in range(rounds):
    for c in cases:
        a, b = runs[c]
        order = [(old, a), (new, b)] if r % 2 == 0 else [(new, b), (old, a)]
        for binary, into in order:
            into.append(measure(binary, c))
        print(f"  round {r + 1} {c:7} OLD {a[-1]:9.1f}  NEW {b[-1]:9.1f}  ratio {a[-1] / b[-1]:.3f}", flush=True)
print(f"load average {os.getloadavg()[0]:.1f} at the end")
print(f"{'case':7} {'unit':>13} {'OLD median (min-max)':>24} {'NEW median (min-max)':>24} {'ratio':>6} {'95 % interval':>14} {'per round':>12}")
for c in cases:
    a, b = runs[c]
    lo, hi = ratio_interval(a, b)
    per = [x / y for x, y in zip(a, b)]
    fa = f"{statistics.median(a):.1f} ({min(a):.1f}-{max(a):.1f})"
    fb = f"{statistics.median(b):.1f} ({min(b):.1f}-{max(b):.1f})"
    print(f"{c:7} {unit[c]:>13} {fa:>24} {fb:>24} {statistics.median(a) / statistics.median(b):6.3f} {lo:6.3f}-{hi:<7.3f} {min(per):.2f}-{max(per):.2f}")
EOF
