#!/usr/bin/env bash
# Run every fuzz target (or the ones named) for SECONDS each (default 620), PARALLEL at a
# time (default 2), with the limits of docs/reliability.md: no panic or abort, no input that
# takes more than 10 s, no more than 1 GiB of memory. Logs go to fuzz/logs/TARGET.log; the
# last lines of each log hold libFuzzer's final statistics (executions, time, peak memory).
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_PER_TARGET=${SECONDS_PER_TARGET:-620}
PARALLEL=${PARALLEL:-2}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build -O
mkdir -p logs
# The built-in profiles, protocols and usage presets seed their targets from where they live
# (no copies under seeds/ to go stale).
builtin_seeds() {
    case $1 in
        profile) echo ../crates/flashsim/profiles ;;
        protocol) echo ../crates/flashlab-workload/protocols ;;
        usage) echo ../crates/flashlab-life/presets ;;
    esac
}
run_one() {
    local t=$1
    mkdir -p "corpus/$t" "artifacts/$t"
    local seeds=()
    [ -d "seeds/$t" ] && seeds+=("seeds/$t")
    local b
    b=$(builtin_seeds "$t")
    [ -n "$b" ] && seeds+=("$b")
    nice -n 10 cargo +nightly fuzz run -O "$t" "corpus/$t" "${seeds[@]}" -- \
        -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=1024 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"logs/$t.log" 2>&1
    echo "$t: exit $? ($(grep -a -E '^stat::number_of_executed_units' "logs/$t.log" | tail -1))"
}
running=0
for t in "${targets[@]}"; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$PARALLEL" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait
