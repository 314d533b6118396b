#!/bin/sh
# Capture what `flashlab doctor --root DIR` reads, from an Android phone over adb, or (with
# --local) from the Linux machine this runs on: a board, a laptop, a VM. Needs no root on the
# phone or the board, and writes nothing there except a temporary directory it removes.
#
#   scripts/capture-adb.sh [-s SERIAL] [OUTDIR]     # phone over adb (default OUTDIR: ./doctor-capture)
#   scripts/capture-adb.sh --local [OUTDIR]         # this machine
#   flashlab doctor --root OUTDIR
#
# The tree mirrors the system's paths (proc/self/mountinfo, proc/mounts, sys/block/..., etc/...)
# plus doctor/: df.txt (`df -P -k`), getprop.txt, dumpsys-mount.txt, sysblock-links.txt,
# unreadable.txt (what could not be read, and why) and capture.txt. docs/doctor.md describes it.
#
# FLASHLAB_CAPTURE_TMP sets the temporary directory on the phone (default /data/local/tmp).
set -eu

usage() {
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

# The part that runs on the captured system: scripts/capture-core.sh (POSIX sh).
CORE=$(cat "$(dirname "$0")/capture-core.sh")

LOCAL=0
SERIAL=""
OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --local) LOCAL=1 ;;
        -s) shift; [ $# -gt 0 ] || usage 2; SERIAL="$1" ;;
        -h|--help) usage 0 ;;
        -*) echo "capture-adb.sh: unknown option $1" >&2; usage 2 ;;
        *) OUT="$1" ;;
    esac
    shift
done
OUT="${OUT:-./doctor-capture}"
if [ -e "$OUT" ]; then
    echo "capture-adb.sh: $OUT exists; give a new directory" >&2
    exit 1
fi

if [ "$LOCAL" = 1 ]; then
    sh -c "$CORE" capture "$OUT"
else
    command -v adb > /dev/null 2>&1 || { echo "capture-adb.sh: adb not found (install platform-tools)" >&2; exit 1; }
    if [ -n "$SERIAL" ]; then
        ADB="adb -s $SERIAL"
    else
        ADB="adb"
    fi
    [ "$($ADB get-state 2>/dev/null)" = device ] || { echo "capture-adb.sh: no device (adb devices; enable USB debugging)" >&2; exit 1; }
    T="${FLASHLAB_CAPTURE_TMP:-/data/local/tmp}"
    script=$(mktemp)
    trap 'rm -f "$script"' EXIT
    printf '%s\n' "$CORE" > "$script"
    $ADB push "$script" "$T/flashlab-capture.sh" > /dev/null
    $ADB shell sh "$T/flashlab-capture.sh" "$T/flashlab-capture"
    mkdir -p "$OUT.part"
    $ADB pull "$T/flashlab-capture" "$OUT.part/" > /dev/null
    $ADB shell rm -rf "$T/flashlab-capture" "$T/flashlab-capture.sh"
    mv "$OUT.part/flashlab-capture" "$OUT"
    rmdir "$OUT.part"
fi
echo "captured into $OUT; now: flashlab doctor --root $OUT"
