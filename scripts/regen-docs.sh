#!/usr/bin/env bash
# Regenerate every output shown in README.md and docs/*.md from the current code, and the
# screenshots, then check the result. Idempotent: simulated outputs come out the same on a
# second run; measured ones (real devices, ```console shape blocks) are re-measured.
#
#   scripts/regen-docs.sh            # everything (root: the real-device blocks need root, FUSE,
#                                    # loop devices and tracefs, as .ci/run; ~15-30 min: the
#                                    # `slow` blocks include a simulated year on 16 GB devices)
#   scripts/regen-docs.sh sqlite     # one document's test (tests/docs.rs names: readme, sqlite, ...)
#   SCREENSHOTS=0 scripts/regen-docs.sh   # outputs only
#   FLASHLAB_DOCS_SKIP_SLOW=1 scripts/regen-docs.sh   # leave the `slow` blocks as they are
#
# 1. Command outputs, and the files commands write under docs/ (the breakdown charts): the docs
#    test in overwrite mode (crates/flashlab/tests/docs.rs), one document at a time so that
#    measured blocks do not share the CPUs with each other.
# 2. Screenshots with headless Chromium (installed when missing): docs/report-age.png (also
#    checked for console errors by bench/report-chromium.sh) and docs/life-report.png.
#    docs/sweep-phone-year.png is matplotlib's, from examples/sweep/plot_p99.py (a 12-minute
#    sweep through the Python package): not regenerated here.
# 3. The docs test again in check mode: every deterministic block must now match.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

echo "== 1. outputs shown in the docs"
# A command that fails leaves its block as it was and is reported; the rest still regenerate.
status=0
FLASHLAB_DOCS=overwrite cargo test -q -p flashlab --test docs -- --test-threads=1 "$@" || status=$?

if [ "${SCREENSHOTS:-1}" = 1 ] && [ $# -eq 0 ]; then
    echo "== 2. screenshots"
    # The binary the docs test just built and ran (the cargo profile `test`: optimized; what it
    # draws is deterministic, so no separate release build is needed).
    FL=$(cargo test -q -p flashlab --test docs --no-run --message-format=json 2>/dev/null \
        | grep -o '"executable":"[^"]*/flashlab"' | head -1 | cut -d'"' -f4)
    [ -x "$FL" ] || { echo "regen-docs: cannot find the flashlab binary the docs test built" >&2; exit 1; }
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
    # The age report of the default device (README "Pictures", docs/report.md).
    FLASHLAB=$FL bench/report-chromium.sh
    # docs/life.md: the report of its example run.
    (cd "$WORK" && "$FL" life --target sim:toy --usage anandtech-10g --scale 0.0241 --compare-policies \
        --report life.html >/dev/null)
    scripts/screenshot.sh "$WORK/life.html" docs/life-report.png
fi

echo "== 3. check"
cargo test -q -p flashlab --test docs -- "$@" || status=$?
if [ "$status" = 0 ]; then
    echo "regen-docs: done; review with git diff README.md docs/"
else
    echo "regen-docs: some commands failed or outputs still differ (above); the other blocks were regenerated" >&2
fi
exit "$status"
