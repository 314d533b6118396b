#!/usr/bin/env bash
# fio 4 KiB random writes at QD1 on the loop device of `flashlab serve --target sim:PROFILE`
# (real time, --time-scale 1), against (a) the model latencies of those very requests
# (stats.json) and (b) the simulator's own prediction for the same job (`flashlab run` on
# sim:PROFILE, virtual time). The fixed overhead of the FUSE + loop path is measured the same
# way on the zero-latency profile. Runs are interleaved and repeated; medians are reported.
# Not a test: timing on a shared machine.
#
#   RUNTIME=8 REPS=3 bench/serve/qd1.sh [PROFILE...]     (default: toy emmc-16g ufs-64g)
source "$(dirname "$0")/common.sh"
PROFILES=${*:-toy emmc-16g ufs-64g}
RT=${RUNTIME:-8} SPAN=${SPAN:-128m} REPS=${REPS:-3}
cat >"$WORK/qd1.fio" <<JOB
[qd1]
rw=randwrite
bs=4k
iodepth=1
size=$SPAN
runtime=$RT
time_based
direct=1
randrepeat=0
JOB
p50() { jq -r '.jobs[0].write.clat_ns.percentile."50.000000" / 1000'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
run_served() {  # NAME PROFILE-SPEC: appends "NAME fio_p50 model_p50" to $WORK/runs
  start_server --target "$2"
  local j; j=$(fio_json "$LOOPDEV" randwrite 4k 1 "$RT" "$SPAN")
  echo "$1 $(echo "$j" | p50) $(jq '.latency.write.model.p50_us' "$FUSEDIR/stats.json")" | tee -a "$WORK/runs" >&2
  stop_server >"$WORK/last-report.txt"
}
echo "kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); ${RT}s per run, $REPS reps"
for rep in $(seq "$REPS"); do
  run_served zero "sim:$ROOT/bench/serve/zero-latency.toml"
  for p in $PROFILES; do run_served "$p" "sim:$p"; done
done
Z=$(awk '$1 == "zero" {print $2}' "$WORK/runs" | median)
echo "fixed overhead: fio QD1 4 KiB randwrite p50 on the zero-latency profile, median of $REPS: $Z us"
printf '%-10s %10s %12s %12s %12s %12s %14s\n' profile sim_p50 model_p50 fio_p50 fio-model sim+ovh 'fio/(sim+ovh)'
for p in $PROFILES; do
  S=$("$FLASHLAB" run "$WORK/qd1.fio" --target "sim:$p" --output-format json | p50)
  F=$(awk -v p="$p" '$1 == p {print $2}' "$WORK/runs" | median)
  M=$(awk -v p="$p" '$1 == p {print $3}' "$WORK/runs" | median)
  D=$(awk -v p="$p" '$1 == p {print $2 - $3}' "$WORK/runs" | median)
  awk -v p="$p" -v f="$F" -v m="$M" -v s="$S" -v z="$Z" -v d="$D" 'BEGIN {
    printf "%-10s %10.1f %12.1f %12.1f %12.1f %12.1f %14.3f\n", p, s, m, f, d, s + z, f / (s + z) }'
done
echo "(us; sim_p50: flashlab run on sim:PROFILE; model_p50: the served requests as the model timed them)"
