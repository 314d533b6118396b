#!/usr/bin/env bash
# screenshot.sh PAGE.html OUT.png [WIDTH,HEIGHT]: a headless Chromium screenshot of a
# self-contained flashlab report (no network: every host name resolves to nothing). Installs
# Debian's chromium when missing (root, or sudo). Used by scripts/regen-docs.sh.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 PAGE.html OUT.png [WIDTH,HEIGHT]" >&2; exit 2; }
page=$(realpath "$1") out=$2 size=${3:-1200,2400}
if ! command -v chromium >/dev/null 2>&1; then
    SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --host-resolver-rules="MAP * ~NOTFOUND" --hide-scrollbars --user-data-dir="$profile" \
    --window-size="$size" --screenshot="$out" "file://$page" >/dev/null 2>"$profile/log" \
    || { echo "screenshot.sh: chromium failed on $page:" >&2; cat "$profile/log" >&2; exit 1; }
[ -s "$out" ] || { echo "screenshot.sh: no screenshot written to $out" >&2; exit 1; }
echo "screenshot.sh: $out"
