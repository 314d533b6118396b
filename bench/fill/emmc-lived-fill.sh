#!/usr/bin/env bash
# Issue 17 acceptance 3 on emmc-5.1 (docs/fill.md, "GC paced over the commands"): `flashlab
# fill` on a lived-in device (`--precondition lived`), without trim and with a daily fstrim
# since the owner's deletions, on the whole part and on an eighth of it
# (bench/fill/emmc-eighth.toml). Prints each run's table (p50 ... max and mean per tenth of the
# fill) and the CPU time it took. Too slow for a test: the whole part writes 32 GB to build
# the lived-in state and 16 GB in the fill.
#
#   bench/fill/emmc-lived-fill.sh [eighth|whole|both]   (default both)
#
# Needs a release build (cargo build --release -p flashlab). Simulated numbers do not depend on
# the machine; only the CPU time does.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FLASHLAB=${FLASHLAB:-$ROOT/target/release/flashlab}
WHICH=${1:-both}
run() {  # TARGET TRIM
  echo "== flashlab fill --target sim:$1 --precondition lived --trim $2 --fs plain"
  /usr/bin/time -f "cpu %U s user, %S s sys, max rss %M KiB" \
    "$FLASHLAB" fill --target "sim:$1" --precondition lived --trim "$2" --fs plain --seed 1
}
for trim in none daily; do
  case $WHICH in eighth|both) run "$ROOT/bench/fill/emmc-eighth.toml" "$trim" ;; esac
  case $WHICH in whole|both) run emmc-5.1 "$trim" ;; esac
done
