#!/bin/sh
# Simulator speed (issue 22): simulated host writes per wall second and per CPU second, and
# peak memory, for
#   - `sim waf` on 16384 blocks of 256 pages (greedy, spare 0.07): passes 1 and 4;
#   - `wsat` on bench/speed/mqsim-match.toml (MQSim's 16 GiB geometry): --times 1 and 4;
#   - `gc` (only when CASES names it): `wsat` on bench/speed/mqsim-match-2g.toml, the same
#     device at 2 GiB: --times 2 and 4, a window where GC copies 4.3 units per host write
#     (the `wsat` case's: 2.6);
#   - a DFTL profile (`wsat` on sim:emmc-4.5, 512 KiB map cache): --times 0.25 and 1;
#   - a hybrid log-block profile (`wsat` on sim:nexus7-2012, QD1): --times 0.01 and 0.04;
#   - `age` on sim:nvme-256g (the whole protocol, once).
# Each rate is marginal, as /work/shared/bench/README.md describes: the host writes of the
# longer run minus those of the shorter, over the difference of their times, so start-up and
# prefill cancel out. "wall" is wall-clock time (sensitive to other load on the machine);
# "cpu" is user + system time of the process (far less sensitive to load), given as ns of CPU
# per simulated host write. Peak memory is the longer run's maximum resident set.
#
#   bench/speed.sh                   # builds the release binary first
#   FLASHLAB_BIN=/path/flashlab REPEAT=3 bench/speed.sh
#   CASES="wsat age" bench/speed.sh  # a subset: waf wsat dftl hybrid age (and gc, not by default)
#   HYBRID_TARGET=sim:old/nexus7-2012.toml bench/speed.sh  # the hybrid case on another profile
#
# REPEAT runs each case that many times and keeps the fastest. Results: docs/speed.md.
# RSS=0 skips the extra run of each case that measures peak memory (bench/compare.sh sets it).
#
#   ICOUNT=1 bench/speed.sh          # instructions per simulated write instead (callgrind)
#
# ICOUNT runs every flashlab invocation under valgrind's callgrind and gives the marginal
# number of instructions per simulated host write: deterministic, so a change of 1 % shows on
# a shared machine whose CPU times vary by 5-10 % from run to run. It is not a time (cache
# misses and branch mispredictions cost nothing in it), so a change is judged by both. About
# 40x slower than a timed run (the five cases: ~18 minutes on this project's 2-vCPU machine).
set -eu
cd "$(dirname "$0")/.."
if [ -z "${FLASHLAB_BIN:-}" ]; then
    cargo build --release -p flashlab >/dev/null 2>&1 || cargo build --release -p flashlab
    FLASHLAB_BIN=target/release/flashlab
fi
export FLASHLAB_BIN
exec python3 - "$@" <<'EOF'
import json, os, resource, subprocess, sys, tempfile

BIN = os.environ["FLASHLAB_BIN"]
ICOUNT = os.environ.get("ICOUNT", "") not in ("", "0")
# Instruction counts do not vary from run to run.
REPEAT = 1 if ICOUNT else int(os.environ.get("REPEAT", "1"))
CASES = os.environ.get("CASES", "waf wsat dftl hybrid age").split()
RSS = os.environ.get("RSS", "1") != "0"
tmp = tempfile.mkdtemp(prefix="flashlab-speed-")


def run(args, out=None):
    """Run flashlab; returns (wall s, cpu s, parsed JSON, instructions or None). Best of REPEAT."""
    best = None
    for _ in range(REPEAT):
        path = os.path.join(tmp, "out.json")
        counts = os.path.join(tmp, "callgrind.out")
        tool = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={counts}"] if ICOUNT else []
        full = tool + [BIN] + args + (["--json", path] if out == "file" else [])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = os.times().elapsed
        p = subprocess.run(full, capture_output=True, text=True)
        wall = os.times().elapsed - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            sys.exit(f"flashlab {' '.join(args)} failed: {p.stderr.strip()}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        instr = None
        if ICOUNT:
            # callgrind's file ends with "summary: <instructions>" (or "totals:").
            text = open(counts).read()
            instr = int(next(l.split()[1] for l in text.splitlines() if l.startswith(("summary:", "totals:"))))
            os.remove(counts)
        # ru_maxrss of children is the largest of any child so far: measure in a fresh child.
        # (Under callgrind the program's JSON is still alone on stdout: valgrind reports on stderr.)
        doc = json.load(open(path)) if out == "file" else json.loads(p.stdout)
        r = (wall, cpu, doc, instr)
        if best is None or cpu < best[1]:
            best = r
    return best


def peak_rss(args):
    """Peak resident set of one run, bytes (GNU time's %M, KiB)."""
    path = os.path.join(tmp, "time.txt")
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", path, BIN] + args, capture_output=True, check=True)
    return int(open(path).read().split()[-1]) * 1024


def marginal(name, short, long, writes, out="file"):
    ws, cs, ds, is_ = run(short, out)
    wl, cl, dl, il = run(long, out)
    n = writes(dl) - writes(ds)
    if ICOUNT:
        print(f"{name:8} {n:>10} {(il - is_) / n:>12.1f}")
        return
    rss = peak_rss(long + (["--json", os.path.join(tmp, "m.json")] if out == "file" else [])) if RSS else float("nan")
    print(f"{name:8} {n:>10} {n / (wl - ws) / 1e6:>8.3f} {(cl - cs) * 1e9 / n:>8.1f} {n / (cl - cs) / 1e6:>8.3f} {rss / 2**20:>8.1f}")


def sim_waf_doc(d):
    """`sim waf`'s figures: the JSON document's results (older binaries printed them bare)."""
    return d["results"] if "results" in d else d


def wsat_writes(d):
    # Binaries before session 26's document change name it "result".
    return d.get("results", d.get("result"))["device"]["counters"]["host_units_written"]


if ICOUNT:
    print(f"flashlab simulator instructions: {BIN} (callgrind, marginal per simulated host write)")
    print(f"{'case':8} {'writes':>10} {'instr/write':>12}")
else:
    print(f"flashlab simulator speed: {BIN}, best of {REPEAT}, load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'case':8} {'writes':>10} {'M/s wall':>8} {'ns cpu':>8} {'M/s cpu':>8} {'peak MiB':>8}")
if "waf" in CASES:
    waf = ["sim", "waf", "--blocks", "16384", "--pages-per-block", "256", "--passes"]
    # host_pages_written covers the second half of the random phase: the whole of it is twice that.
    marginal("sim-waf", waf + ["1"], waf + ["4"], lambda d: 2 * sim_waf_doc(d)["host_pages_written"])
if "wsat" in CASES:
    w = ["wsat", "--target", "sim:bench/speed/mqsim-match.toml", "--intervals", "10", "--times"]
    marginal("wsat", w + ["1"], w + ["4"], wsat_writes)
if "gc" in CASES:
    w = ["wsat", "--target", "sim:bench/speed/mqsim-match-2g.toml", "--intervals", "10", "--times"]
    marginal("gc", w + ["2"], w + ["4"], wsat_writes)
if "dftl" in CASES:
    w = ["wsat", "--target", "sim:emmc-4.5", "--intervals", "10", "--times"]
    marginal("dftl", w + ["0.25"], w + ["1"], wsat_writes)
if "hybrid" in CASES:
    # HYBRID_TARGET: another profile file, e.g. an older tree's nexus7-2012.toml, so that two
    # binaries are compared on the same device (the built-in profile was refitted since).
    hybrid = os.environ.get("HYBRID_TARGET", "sim:nexus7-2012")
    w = ["wsat", "--target", hybrid, "--iodepth", "1", "--intervals", "10", "--times"]
    marginal("hybrid", w + ["0.01"], w + ["0.04"], wsat_writes)
if "age" in CASES:
    args = ["age", "--target", "sim:nvme-256g"]
    wall, cpu, _, instr = run(args, "file")
    if ICOUNT:
        print(f"age nvme-256g: {instr / 1e9:.3f} G instructions (the whole protocol)")
    else:
        rss = peak_rss(args + ["--json", os.path.join(tmp, "a.json")]) if RSS else float("nan")
        print(f"age nvme-256g: {wall:.2f} s wall, {cpu:.2f} s cpu, peak {rss / 2**20:.1f} MiB")
EOF
