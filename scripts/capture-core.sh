# The part of scripts/capture-adb.sh that runs on the captured system (a phone over adb, a
# board, this machine): POSIX sh, works with toybox and busybox, needs no root, writes only the
# directory given as its argument. `flashlab phone doctor` runs this same file over adb.
#
#   sh capture-core.sh DIR
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
        device/oemid device/prv device/hwrev \
        dm/name md/level loop/backing_file; do
        grab "/sys/block/$n/$f"
    done
    for p in "/sys/block/$n/$n"*; do
        [ -e "$p/partition" ] || continue
        for f in dev partition size start ro; do
            grab "$p/$f"
        done
    done
    # UFS: the host controller's descriptors (part, specification version, health, link).
    link=$(readlink "$b" 2>/dev/null || true)
    case "$link" in
        *ufs*)
            host=$(printf '%s\n' "$link" | sed 's#^\(\.\./\)*#/sys/#; s#\(/[^/]*ufs[^/]*\)/.*#\1#')
            for f in string_descriptors/manufacturer_name string_descriptors/product_name \
                string_descriptors/product_revision device_descriptor/specification_version \
                device_descriptor/manufacturer_id health_descriptor/life_time_estimation_a \
                health_descriptor/life_time_estimation_b health_descriptor/eol_info \
                power_info/gear power_info/lane power_info/mode; do
                grab "$host/$f"
            done
            ;;
    esac
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
    echo "captured by: flashlab scripts/capture-adb.sh (format 2)"
    echo "date: $(date 2>/dev/null)"
    echo "date-epoch: $(date +%s 2>/dev/null)"
    echo "uname: $(uname -a 2>/dev/null)"
    echo "id: $(id 2>/dev/null)"
    if [ -d /run/systemd/system ]; then echo "systemd-running: yes"; else echo "systemd-running: no"; fi
} > "$D/doctor/capture.txt"
