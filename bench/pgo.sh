#!/bin/sh
# A profile-guided build of flashlab (issue 22): the compiler lays out and inlines the
# simulator's hot paths by where a training run spent its time. The results are the same bit
# for bit (the same source, only compiled differently); the speed gain is in docs/speed.md.
#
#   bench/pgo.sh              # builds target/pgo/use/release/flashlab
#   bench/pgo.sh --install    # then installs it as `cargo install --locked --path crates/flashlab` would
#   FLASHLAB_BIN=target/pgo/use/release/flashlab bench/speed.sh   # its speed
#
# Three steps, each in its own directory under target/pgo (nothing is written elsewhere):
#   1. an instrumented build (-Cprofile-generate) into target/pgo/gen;
#   2. training runs of that binary, which write their counts into target/pgo/profiles. One run
#      per part of the simulator, each on other parameters than bench/speed.sh's cases measure
#      (so that its figures are not the training's own): the page-mapped FTL's paced GC
#      (`wsat` on the 2 GiB mqsim-match, 2x its capacity), the DFTL (emmc-4.5) and hybrid
#      (nexus7-2012, QD1) FTLs, `sim waf` on a small device, the four-corner reads of `bench`,
#      and `age` on its default device (filesystem model, TRIM, idle GC);
#   3. the counts merged (llvm-profdata) and the optimised build (-Cprofile-use) into
#      target/pgo/use.
#
# Needs llvm-profdata of rustc's own LLVM version (the counts' format follows it):
# `rustup component add llvm-tools`. About 9 minutes on this project's 2-vCPU machine (two
# release builds and 3 s of training).
set -eu
cd "$(dirname "$0")/.."
install=0
case "${1:-}" in
    "") ;;
    --install) install=1 ;;
    *)
        echo "usage: bench/pgo.sh [--install]" >&2
        exit 2
        ;;
esac
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
    echo "bench/pgo.sh: $profdata not found: install it with 'rustup component add llvm-tools'" >&2
    exit 1
fi
dir="$PWD/target/pgo"
case "$dir" in
    *[[:space:]]*)
        # RUSTFLAGS is split at whitespace, so the profile paths below cannot hold any.
        echo "bench/pgo.sh: the checkout's path has whitespace in it ($dir): rustc's profile flags cannot name it" >&2
        exit 1
        ;;
esac
rm -rf "$dir/profiles" "$dir/train"
mkdir -p "$dir/profiles" "$dir/train"

echo "bench/pgo.sh: 1/3 instrumented build (target/pgo/gen)" >&2
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$dir/profiles" CARGO_TARGET_DIR="$dir/gen" \
    cargo build --release --locked -p flashlab
bin="$dir/gen/release/flashlab"

echo "bench/pgo.sh: 2/3 training runs" >&2
train() {
    echo "  flashlab $*" >&2
    "$bin" "$@" >"$dir/train/out.txt"
}
train wsat --target sim:bench/speed/mqsim-match-2g.toml --times 2 --json "$dir/train/gc.json"
train wsat --target sim:emmc-4.5 --times 0.2 --json "$dir/train/dftl.json"
train wsat --target sim:nexus7-2012 --iodepth 1 --times 0.01 --json "$dir/train/hybrid.json"
train sim waf --blocks 2048 --pages-per-block 64 --passes 3
train bench --target sim:ufs-3.1 --json "$dir/train/bench.json"
train age --json "$dir/train/age.json"

echo "bench/pgo.sh: 3/3 optimised build (target/pgo/use)" >&2
"$profdata" merge -o "$dir/flashlab.profdata" "$dir/profiles"
# The same flags and directory for the build and the install, so that the install reuses it.
export RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$dir/flashlab.profdata" CARGO_TARGET_DIR="$dir/use"
cargo build --release --locked -p flashlab
echo "$dir/use/release/flashlab"
if [ "$install" = 1 ]; then
    cargo install --locked --path crates/flashlab
fi
