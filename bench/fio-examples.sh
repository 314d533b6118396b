#!/bin/sh
# Which of fio's own example job files flashlab runs unchanged on a simulated target (issue 46,
# acceptance 1): every example in FIO_EXAMPLES_DIR whose engine is portable (libaio, io_uring,
# psync, sync, null, or no ioengine= line) is run with `flashlab run -q --target sim:PROFILE`
# in a scratch directory of its own, and reported as
#
#   ok       NAME                      it finished
#   ok       NAME (still running)      it was still running after LIMIT seconds (a long or
#                                      time_based job: it started, so flashlab took the file)
#   refused  NAME: REASON              flashlab stopped with an error (its first line)
#
# then the total. Nothing of fio's is copied into this repository: pass fio's directory, e.g.
#
#   bench/fio-examples.sh ~/src/fio/examples
#   bench/fio-examples.sh ~/src/fio/examples nvme-256g       # PROFILE (default nvme-256g)
#   LIMIT=5 FLASHLAB=target/release/flashlab bench/fio-examples.sh ~/src/fio/examples
#
# FLASHLAB: the binary (default target/release/flashlab, else `flashlab` on PATH). LIMIT:
# seconds per example (default 15).
set -eu
if [ "$#" -lt 1 ] || [ "$#" -gt 2 ]; then
    echo "usage: bench/fio-examples.sh FIO_EXAMPLES_DIR [PROFILE]" >&2
    exit 2
fi
dir=$1
profile=${2:-nvme-256g}
limit=${LIMIT:-15}
if [ ! -d "$dir" ]; then
    echo "bench/fio-examples.sh: $dir: not a directory (give fio's examples/ directory)" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${FLASHLAB:-}
if [ -z "$bin" ]; then
    if [ -x "$here/target/release/flashlab" ]; then
        bin=$here/target/release/flashlab
    elif command -v flashlab >/dev/null 2>&1; then
        bin=$(command -v flashlab)
    else
        echo "bench/fio-examples.sh: no flashlab binary (build it with cargo build --release, or set FLASHLAB)" >&2
        exit 2
    fi
fi
case "$bin" in /*) ;; *) bin=$(pwd)/$bin ;; esac

# portable FILE: every ioengine= of the file (comments skipped) is one flashlab stands in for.
portable() {
    engines=$(sed -e 's/[;#].*//' "$1" | sed -n 's/^[[:space:]]*ioengine[[:space:]]*=[[:space:]]*\([^[:space:]]*\).*/\1/p')
    for e in $engines; do
        case "$e" in libaio | io_uring | psync | sync | null) ;; *) return 1 ;; esac
    done
    return 0
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT INT TERM
total=0
ok=0
for f in "$dir"/*.fio; do
    [ -f "$f" ] || continue
    portable "$f" || continue
    name=$(basename "$f")
    total=$((total + 1))
    run="$scratch/$total"
    mkdir "$run"
    cp "$f" "$run/"
    rc=0
    (cd "$run" && timeout "$limit" "$bin" run -q --target "sim:$profile" "$name" >out 2>err) || rc=$?
    if [ "$rc" = 0 ]; then
        ok=$((ok + 1))
        printf 'ok       %s\n' "$name"
    elif [ "$rc" = 124 ]; then
        ok=$((ok + 1))
        printf 'ok       %s (still running after %ss)\n' "$name" "$limit"
    else
        reason=$(grep -v '^warning' "$run/err" | head -n 1 | cut -c1-220)
        printf 'refused  %s: %s\n' "$name" "${reason:-exit $rc}"
    fi
    rm -rf "$run"
done
echo "$ok of $total portable examples run on sim:$profile"
