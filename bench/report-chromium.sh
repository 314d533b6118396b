#!/usr/bin/env bash
# Issue 9, acceptance 2: the HTML report of `flashlab age` opens in headless Chromium without
# console errors, and a screenshot of it goes to docs/report-age.png.
#
#   bench/report-chromium.sh                 # age on sim:nexus7-2012 if that profile exists, else the default sim:emmc-16g
#   PROFILE=toy PROTOCOL=age-small bench/report-chromium.sh
#   OUT=/tmp/x.png bench/report-chromium.sh  # screenshot elsewhere
#
# Installs Debian's `chromium` package when it is missing (root, or sudo). Chromium runs with
# no network: every host name resolves to nothing, and the page must load nothing anyway.
# Exits non-zero when the page logs anything to the console, fails to load, holds an external
# reference, or a chart is missing from the rendered DOM.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-docs/report-age.png}
PROTOCOL=${PROTOCOL:-age}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if ! command -v chromium >/dev/null 2>&1; then
    echo "installing Debian's chromium package"
    SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
chromium --version 2>/dev/null | grep -v 'unexpected operator' || true

# FLASHLAB=path uses that binary (scripts/regen-docs.sh passes the one its docs test built).
if [ -z "${FLASHLAB:-}" ]; then
    cargo build --release -q -p flashlab
    FLASHLAB=target/release/flashlab
fi
FLASHLAB=$(realpath "$FLASHLAB")
if [ -z "${PROFILE:-}" ]; then
    if "$FLASHLAB" profiles nexus7-2012 >/dev/null 2>&1; then PROFILE=nexus7-2012; else PROFILE=emmc-16g; fi
fi

echo "== flashlab age --target sim:$PROFILE --protocol $PROTOCOL"
ROOT=$PWD
REPORT="$WORK/report-age.html"
# Inside $WORK, so that the report names the results file without a temporary directory.
(
    cd "$WORK"
    "$FLASHLAB" age --target "sim:$PROFILE" --protocol "$PROTOCOL" --json "age-$PROFILE.json" >/dev/null
    # `flashlab report` once the CLI has it; the library's example until then.
    if "$FLASHLAB" report --help >/dev/null 2>&1; then
        "$FLASHLAB" report "age-$PROFILE.json" -o "$REPORT" --svg svg
    else
        cargo run --manifest-path "$ROOT/Cargo.toml" --release -q -p flashlab-report --example render -- -o "$REPORT" --svg svg "age-$PROFILE.json"
    fi
)

echo "== static checks of $REPORT"
fail=0
if grep -Eo 'https?://[^"'"'"' <>)]*' "$REPORT" | grep -v '^http://www.w3.org/2000/svg$' | sort -u | grep .; then
    echo "FAIL: external URLs above"; fail=1
fi
if grep -Eiq '<script|<link|<iframe|@import|url\(' "$REPORT"; then
    echo "FAIL: script, link, iframe or CSS url() in the report"; fail=1
fi

CHROME=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
    --disable-background-networking --disable-component-update --disable-sync
    --host-resolver-rules="MAP * ~NOTFOUND" --hide-scrollbars
    --enable-logging=stderr --v=0)

echo "== chromium --dump-dom (console messages are failures: the page has no script)"
timeout 120 "${CHROME[@]}" --user-data-dir="$(mktemp -d -p "$WORK")" --dump-dom "file://$REPORT" >"$WORK/dom.html" 2>"$WORK/dom.log" || { echo "FAIL: chromium exited $?"; cat "$WORK/dom.log"; exit 1; }
if grep -E 'CONSOLE|Uncaught|Failed to load|net::ERR_' "$WORK/dom.log"; then
    echo "FAIL: console messages above"; fail=1
else
    echo "no console messages"
fi
charts=$(grep -c '<svg' "$WORK/dom.html" || true)
expected=$(ls "$WORK/svg" | wc -l)
echo "charts in the rendered DOM: $charts (report has $expected)"
[ "$charts" -ge "$expected" ] && [ "$expected" -ge 3 ] || { echo "FAIL: charts missing"; fail=1; }

echo "== chromium --screenshot=$OUT"
mkdir -p "$(dirname "$OUT")"
timeout 120 "${CHROME[@]}" --user-data-dir="$(mktemp -d -p "$WORK")" --window-size=1200,2400 --screenshot="$OUT" "file://$REPORT" >/dev/null 2>"$WORK/shot.log" || { echo "FAIL: chromium exited $?"; cat "$WORK/shot.log"; exit 1; }
if grep -E 'CONSOLE|Uncaught' "$WORK/shot.log"; then
    echo "FAIL: console messages above"; fail=1
fi
ls -l "$OUT"
[ "$fail" = 0 ] && echo "report-chromium: OK (sim:$PROFILE, protocol $PROTOCOL)"
exit "$fail"
