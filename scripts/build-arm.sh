#!/usr/bin/env bash
# Build flashlab as one statically linked binary for ARM phones and boards (Android's adb shell
# in /data/local/tmp, ODROID/Pine64/Raspberry Pi Linux), on a fresh Debian/Ubuntu x86-64 machine:
#
#   scripts/build-arm.sh                                  # aarch64-unknown-linux-musl (default)
#   scripts/build-arm.sh armv7-unknown-linux-musleabihf   # 32-bit ARM
#
# The binary lands in target/TARGET/release/flashlab. Linking and the C of SQLite (rusqlite's
# bundled sqlite3.c) go through zig (cargo-zigbuild): zig ships musl's headers and libc for
# every target, so no cross gcc or sysroot is needed and the result is static. zig and
# cargo-zigbuild come from PyPI into a virtualenv under FLASHLAB_CROSS_TOOLS (default
# ~/.cache/flashlab-cross); the Rust target comes from rustup. Release build, stripped.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET="${1:-aarch64-unknown-linux-musl}"
TOOLS="${FLASHLAB_CROSS_TOOLS:-$HOME/.cache/flashlab-cross}"
ZIGLANG_VERSION=0.17.1
ZIGBUILD_VERSION=0.24.1

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

rustup target add "$TARGET" >/dev/null

if [ ! -x "$TOOLS/venv/bin/cargo-zigbuild" ] || [ ! -x "$TOOLS/venv/bin/python-zig" ]; then
    if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv python3-pip >/dev/null
    fi
    rm -rf "$TOOLS/venv"
    python3 -m venv "$TOOLS/venv"
    "$TOOLS/venv/bin/pip" install -q "ziglang==$ZIGLANG_VERSION" "cargo-zigbuild==$ZIGBUILD_VERSION"
fi
export PATH="$TOOLS/venv/bin:$PATH"

# No debug info and a stripped binary: it is pushed to phones over USB (the workspace's release
# profile keeps debug info for profiling on the host).
CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true \
    cargo zigbuild --release --locked --target "$TARGET" -p flashlab

BIN="${CARGO_TARGET_DIR:-target}/$TARGET/release/flashlab"
if ! command -v file >/dev/null 2>&1; then
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq file >/dev/null
fi
desc=$(file -b "$BIN")
echo "$BIN: $desc"
case "$desc" in
    *"statically linked"*|*"static-pie linked"*) ;;
    *) echo "build-arm.sh: $BIN is not statically linked" >&2; exit 1 ;;
esac
