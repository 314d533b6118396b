#!/usr/bin/env bash
# `flashlab breakdown` on the loop device of `flashlab serve --target sim:PROFILE` (real time):
# how close D2C's device share is to the simulator's own latency for those very requests
# (issue 11, acceptance 2). 4 KiB randread and randwrite at QD1. The fixed FUSE + loop overhead
# is measured the same way on the zero-latency profile; then for each profile
#   D2C − overhead(zero-latency)  is compared with  the simulated latency (serve's stats.json),
# means and p50s, and "within 10 %" is judged on the p50s (the means carry scheduling tails). Runs are interleaved and repeated; medians are
# reported. Not a test: timing on a shared machine.
#
#   IOS=500 REPS=3 bench/serve/breakdown.sh [PROFILE-SPEC...]   (default: sim:emmc-16g)
source "$(dirname "$0")/common.sh"
FLASHLAB=${FLASHLAB_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/flashlab}
PROFILES=${*:-sim:emmc-16g}
IOS=${IOS:-500} REPS=${REPS:-3}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
run_bd() {  # NAME SPEC: appends "NAME rw d2c_mean d2c_p50 sim_mean sim_device sim_host" (ns) to $WORK/runs
  start_server --target "$2" --size 256m
  # Written once, so reads are of mapped data.
  dd if=/dev/urandom of="$LOOPDEV" bs=1M count=32 oflag=direct status=none
  "$FLASHLAB" breakdown --target "$LOOPDEV" --destroy-data --iodepth 1 --ios "$IOS" --size 32m \
    --json "$WORK/bd.json" >"$WORK/bd-${1//[^A-Za-z0-9._-]/_}.txt" 2>&1
  jq -r --arg n "$1" '.jobs[] | "\($n) \(.rw) \(.phases[2].mean_ns) \(.phases[2].p50_ns) \(.serve.sim_latency_mean_ns) \(.serve.sim_device_mean_ns) \(.serve.sim_host_ns)"' \
    "$WORK/bd.json" | tee -a "$WORK/runs" >&2
  stop_server >/dev/null
}
echo "kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $IOS I/Os per job, $REPS reps"
for rep in $(seq "$REPS"); do
  run_bd zero "sim:$ROOT/bench/serve/zero-latency.toml"
  for p in $PROFILES; do run_bd "$p" "$p"; done
done
col() { awk -v n="$1" -v rw="$2" -v c="$3" '$1 == n && $2 == rw {print $c / 1000}' "$WORK/runs" | median; }
printf '%-16s %-9s %9s %9s %9s %9s %9s %9s %9s %10s %10s %6s\n' profile rw D2C_mean D2C_p50 zero_mean zero_p50 \
  sim_lat sim_dev sim_host 'mean/sim' 'p50/sim' '10%?'
for p in $PROFILES; do
  for rw in randread randwrite; do
    dm=$(col "$p" $rw 3) dp=$(col "$p" $rw 4) zm=$(col zero $rw 3) zp=$(col zero $rw 4)
    sl=$(col "$p" $rw 5) sd=$(col "$p" $rw 6) sh=$(col "$p" $rw 7)
    awk -v p="$p" -v rw=$rw -v dm="$dm" -v dp="$dp" -v zm="$zm" -v zp="$zp" -v sl="$sl" -v sd="$sd" -v sh="$sh" 'BEGIN {
      rm = (dm - zm) / sl; rp = (dp - zp) / sl
      ok = (rp >= 0.9 && rp <= 1.1) ? "yes" : "no"
      printf "%-16s %-9s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %10.3f %10.3f %6s\n", p, rw, dm, dp, zm, zp, sl, sd, sh, rm, rp, ok }'
  done
done
echo "(µs, medians over reps; sim_lat: the whole simulated latency serve held the requests for (sim_host + queue + sim_dev);"
echo " mean/sim = (D2C mean − zero-latency D2C mean) / sim_lat; p50/sim the same with p50s; 10%?: p50/sim within 0.9..1.1 — the p50 is the robust one under load,"
echo " the means carry the scheduling tails of a shared machine)"
