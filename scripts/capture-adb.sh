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

# The part that runs on the captured system (POSIX sh; works with toybox and busybox).
CORE=$(cat <<'CORE_EOF'
set -u
D="$1"
rm -rf "$D"
mkdir -p "$D/doctor"
U="$D/doctor/unreadable.txt"
: > "$U"

# grab PATH: copy one file's content to the same path under $D; note it if it cannot be read.
grab() {
    [ -e "$1" ] || return 0
    [ -d "$1" ] && return 0
    mkdir -p "$D$(dirname "$1")"
    if ! cat "$1" > "$D$1" 2>/dev/null; then
        rm -f "$D$1"
        msg=$(cat "$1" 2>&1 >/dev/null | head -n 1)
        printf '%s\t%s\n' "$1" "${msg##*: }" >> "$U"
    fi
}

# grab_link PATH: a symlink is recreated as a symlink (systemd "wants" links), a file copied.
grab_link() {
    if [ -L "$1" ]; then
        mkdir -p "$D$(dirname "$1")"
        ln -s "$(readlink "$1")" "$D$1"
    else
        grab "$1"
    fi
}

# grab_dir DIR: every regular file in a cron-style directory.
grab_dir() {
    [ -d "$1" ] || return 0
    if ! ls "$1" > /dev/null 2>&1; then
        msg=$(ls "$1" 2>&1 >/dev/null | head -n 1)
        printf '%s\t%s\n' "$1" "${msg##*: }" >> "$U"
        return 0
    fi
    for f in "$1"/* "$1"/.[!.]*; do
        [ -f "$f" ] && grab "$f"
    done
    return 0
}

grab /proc/self/mountinfo
grab /proc/mounts

: > "$D/doctor/sysblock-links.txt"
for b in /sys/block/*; do
    [ -e "$b" ] || continue
    n=${b##*/}
    printf '%s %s\n' "$n" "$(readlink "$b" 2>/dev/null)" >> "$D/doctor/sysblock-links.txt"
    for f in dev size ro removable \
        queue/rotational queue/scheduler queue/write_cache queue/discard_max_bytes \
        queue/discard_granularity queue/logical_block_size queue/physical_block_size \
        device/type device/name device/model device/vendor device/rev device/firmware_rev \
        device/life_time device/pre_eol_info device/manfid device/date device/fwrev \
        dm/name md/level loop/backing_file; do
        grab "/sys/block/$n/$f"
    done
    for p in "/sys/block/$n/$n"*; do
        [ -e "$p/partition" ] || continue
        for f in dev partition size start ro; do
            grab "$p/$f"
        done
    done
    for s in "/sys/block/$n/slaves/"*; do
        [ -e "$s" ] || continue
        mkdir -p "$D/sys/block/$n/slaves"
        : > "$D/sys/block/$n/slaves/${s##*/}"
    done
done

for f in /etc/systemd/system/timers.target.wants/fstrim.timer \
    /usr/lib/systemd/system/timers.target.wants/fstrim.timer \
    /lib/systemd/system/timers.target.wants/fstrim.timer \
    /etc/systemd/system/fstrim.timer /usr/lib/systemd/system/fstrim.timer /lib/systemd/system/fstrim.timer; do
    if [ -L "$f" ] || [ -e "$f" ]; then grab_link "$f"; fi
done
if [ -d /run/systemd/system ]; then
    mkdir -p "$D/run/systemd/system"
    : > "$D/run/systemd/system/.captured"
fi

grab /etc/crontab
grab /etc/anacrontab
for d in /etc/cron.d /etc/cron.hourly /etc/cron.daily /etc/cron.weekly /etc/cron.monthly \
    /etc/periodic/daily /etc/periodic/weekly /etc/periodic/monthly /var/spool/cron/crontabs /var/spool/cron; do
    grab_dir "$d"
done

df -P -k > "$D/doctor/df.txt" 2>/dev/null || true
[ -s "$D/doctor/df.txt" ] || df -k > "$D/doctor/df.txt" 2>/dev/null || true
[ -s "$D/doctor/df.txt" ] || df > "$D/doctor/df.txt" 2>/dev/null || true
if command -v getprop > /dev/null 2>&1; then
    getprop > "$D/doctor/getprop.txt" 2>/dev/null || true
fi
if command -v dumpsys > /dev/null 2>&1; then
    dumpsys mount > "$D/doctor/dumpsys-mount.txt" 2>/dev/null || true
fi
{
    echo "captured by: flashlab scripts/capture-adb.sh (format 1)"
    echo "date: $(date 2>/dev/null)"
    echo "uname: $(uname -a 2>/dev/null)"
    echo "id: $(id 2>/dev/null)"
    if [ -d /run/systemd/system ]; then echo "systemd-running: yes"; else echo "systemd-running: no"; fi
} > "$D/doctor/capture.txt"
CORE_EOF
)

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
