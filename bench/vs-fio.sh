#!/usr/bin/env bash
# fio and flashlab's real-time runner on the same job and file, interleaved and repeated:
# 4 KiB random reads, io_uring, O_DIRECT, at QD32 (the case of record) and QD1, on a 1 GiB file
# in $DIR (default /tmp); with --all also 4 KiB random writes at QD32 and QD1 and 1 MiB
# sequential reads and writes at QD1. Prints IOPS, p50 and CPU time per I/O of each run, then
# the medians and flashlab / fio ratios. Needs fio (Debian package `fio`); not a test.
#
#   bench/vs-fio.sh [--runtime SECS] [--reps N] [--dir DIR] [--size BYTES] [--all]
set -euo pipefail
RUNTIME=5 REPS=3 DIR=/tmp SIZE=$((1 << 30))
CASES="randread:4096:32 randread:4096:1"
while [ $# -gt 0 ]; do
  case "$1" in
    --runtime) RUNTIME=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --all) CASES="$CASES randwrite:4096:32 randwrite:4096:1 read:1048576:1 write:1048576:1"; shift ;;
    *) echo "usage: $0 [--runtime SECS] [--reps N] [--dir DIR] [--size BYTES] [--all]" >&2; exit 2 ;;
  esac
done
command -v fio >/dev/null || { echo "fio not found: apt-get install fio" >&2; exit 1; }
cd "$(dirname "$0")/.."
cargo build --release -q -p flashlab-real --example runjob
RUNJOB=target/release/examples/runjob
FILE="$DIR/flashlab-real-vs-fio.$$.bin"
trap 'rm -f "$FILE"' EXIT

"$RUNJOB" "$FILE" --create --size "$SIZE" --rw randread --iodepth 1 --runtime 0.1 >/dev/null
echo "file $FILE ($SIZE bytes) on $(df --output=source "$DIR" | tail -1); kernel $(uname -r); $(fio --version); ${RUNTIME}s per run, $REPS reps"
OUT=$(mktemp)
# run_fio / run_flashlab RW BS QD: one run, appends "CASE TOOL IOPS P50_US CPU_NS_PER_IO" to $OUT.
run_fio() {
  local D=read F
  case "$1" in *write*) D=write ;; esac
  F=$(fio --name=j --filename="$FILE" --rw="$1" --bs="$2" --iodepth="$3" --ioengine=io_uring \
        --direct=1 --size="$SIZE" --runtime="$RUNTIME" --time_based --group_reporting --output-format=json |
      jq -r --arg d "$D" '.jobs[0] as $j | $j[$d] as $x | [$x.iops, ($x.clat_ns.percentile."50.000000" / 1000),
             (($j.usr_cpu + $j.sys_cpu) / 100 * $x.runtime * 1e6 / $x.total_ios)] | @tsv')
  echo "$1:$2:$3 fio $F" | tee -a "$OUT"
}
run_flashlab() {
  local L
  L=$("$RUNJOB" "$FILE" --size "$SIZE" --rw "$1" --bs "$2" --iodepth "$3" --ioengine io_uring --runtime "$RUNTIME")
  L=$(echo "$L" | sed -E 's/.*iops=([0-9.]+).*p50_us=([0-9.]+).*cpu_ns_per_io=([0-9.]+).*/\1\t\2\t\3/')
  echo "$1:$2:$3 flashlab $L" | tee -a "$OUT"
}
# Interleaved, alternating which tool goes first.
for C in $CASES; do
  IFS=: read -r RW BS QD <<<"$C"
  for rep in $(seq "$REPS"); do
    if [ $((rep % 2)) -eq 1 ]; then run_fio "$RW" "$BS" "$QD"; run_flashlab "$RW" "$BS" "$QD"
    else run_flashlab "$RW" "$BS" "$QD"; run_fio "$RW" "$BS" "$QD"; fi
  done
done
python3 - "$OUT" $CASES <<'PY'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    case, tool, rest = line.split(" ", 2)
    iops, p50, cpu = map(float, rest.split())
    rows.setdefault((case, tool), []).append((iops, p50, cpu))
print()
print(f"{'case':<24}{'fio IOPS':>10}{'flashlab IOPS':>15}{'ratio':>7}{'fio p50 us':>12}{'flashlab p50':>14}{'fio CPU ns/IO':>15}{'flashlab CPU':>14}")
for case in sys.argv[2:]:
    rw, bs, qd = case.split(":")
    f, l = rows[(case, "fio")], rows[(case, "flashlab")]
    med = lambda r, i: st.median(x[i] for x in r)
    size = f"{int(bs) // 1024} KiB" if int(bs) < 1 << 20 else f"{int(bs) >> 20} MiB"
    print(f"{size + ' ' + rw + ' QD' + qd:<24}{med(f,0):>10.0f}{med(l,0):>15.0f}{med(l,0)/med(f,0):>7.3f}"
          f"{med(f,1):>12.1f}{med(l,1):>14.1f}{med(f,2):>15.0f}{med(l,2):>14.0f}")
print("medians of the runs; CPU = user + system time of the job / I/Os")
PY
rm -f "$OUT"
