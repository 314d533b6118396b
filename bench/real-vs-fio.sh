#!/usr/bin/env bash
# fio and `flashlab run` on the same job files, back to back, to check that flashlab's real
# engine measures what fio measures (issue 45). Two targets the script makes for itself:
#
#   tmpfs  a loop device over a file in a tmpfs it mounts (no device: shows engine cost)
#   ext4   a file on ext4 on a loop device over an image file in the temporary directory
#
# and these cases on each, every one with the tool order alternating over the rounds:
#
#   psync    4 KiB randread / randwrite QD1, 1 MiB sequential read QD1
#   io_uring 4 KiB randread / randwrite QD1 and QD32, 1 MiB sequential read QD1 and QD32
#
# For each case it prints both tools' IOPS and mean latency (lat: fio's lat_ns.mean, which for
# psync is its clat; flashlab's lat_ns.mean), the flashlab/fio IOPS ratio as the mean of the
# per-round pairs, and the spread (lowest..highest pair ratio). Needs root (mount, losetup),
# fio, jq, python3, mkfs.ext4. Everything it creates is under one `mktemp -d` directory and is
# removed on exit (ext4 unmounted, loop devices detached, tmpfs unmounted), also on Ctrl-C.
#
# Each tool runs in a session of its own (`setsid`): fio's job process calls setsid() itself, so
# with the kernel's autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled) it competes
# for CPU as a group of its own, while a program left in the caller's session shares that
# session's group with whatever else the session runs (a build, this script). Both tools get
# the same treatment that way.
#
# CPU idle states: by default the script holds /dev/cpu_dma_latency at 0 while it runs, so idle
# CPUs poll instead of halting. In a VM guest (cpuidle's haltpoll driver) a halted vCPU's wake-up
# is a VM exit whose cost the host decides, and at QD1 every I/O waits for one: on this project's
# 2-vCPU machine the same QD1 io_uring job gave 12-69 k IOPS from one run to the next with
# halting idle, for fio, flashlab and a 40-line Rust loop alike, and 59-84 k with polling idle.
# `--idle halt` leaves the idle states alone (what a user's run sees). `--cpu N` pins both tools
# to CPU N.
#
# `--fio-extra "a=1 b=2"` adds job options to fio's copy of each job file only (for example
# `gtod_reduce=1` or `norandommap=1`, to see how much of a difference is fio's own bookkeeping).
# Besides each tool's mean latency the table shows fio's mean clat: for psync that is the
# system call alone, what flashlab's latency covers (docs/real.md).
#
#   bench/real-vs-fio.sh [--rounds N] [--runtime SECS] [--size BYTES] [--ext4-size BYTES]
#                        [--targets "tmpfs ext4"] [--only REGEX] [--flashlab BIN]
#                        [--idle poll|halt] [--cpu N] [--fio-extra "OPT=V ..."]
set -euo pipefail
ROUNDS=2 RUNTIME=5 SIZE=$((1 << 30)) EXT4_SIZE=$((256 << 20)) TARGETS="tmpfs ext4" ONLY=. FLASHLAB= IDLE=poll PIN=() FIO_EXTRA=
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --ext4-size) EXT4_SIZE=$2; shift 2 ;;
    --targets) TARGETS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --flashlab) FLASHLAB=$2; shift 2 ;;
    --idle) IDLE=$2; shift 2 ;;
    --cpu) PIN=(taskset -c "$2"); shift 2 ;;
    --fio-extra) FIO_EXTRA=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root (it mounts a tmpfs and sets up loop devices)" >&2; exit 1; }
for c in fio jq python3 losetup mkfs.ext4; do
  command -v "$c" >/dev/null || { echo "$0: $c not found" >&2; exit 1; }
done
cd "$(dirname "$0")/.."
if [ -z "$FLASHLAB" ]; then
  cargo build --release -q -p flashlab
  FLASHLAB="${CARGO_TARGET_DIR:-target}/release/flashlab"
fi

case "$IDLE" in
  poll)
    # Held open for the script's life: the kernel keeps the request while the file is open.
    exec {LATENCY_FD}>/dev/cpu_dma_latency
    printf '\0\0\0\0' >&"$LATENCY_FD" ;;
  halt) ;;
  *) usage ;;
esac

WORK=$(mktemp -d /tmp/real-vs-fio.XXXXXX)
LOOPS=() MOUNTS=() TOOL_PID=
cleanup() {
  set +e
  # A tool in its own session does not get the terminal's Ctrl-C: stop it before unmounting.
  [ -n "$TOOL_PID" ] && kill "$TOOL_PID" 2>/dev/null && wait "$TOOL_PID" 2>/dev/null
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount "${MOUNTS[$i]}" 2>/dev/null; done
  for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
  # The tmpfs holding the first loop's image can only go once that loop is detached.
  mountpoint -q "$WORK/tmpfs" && umount "$WORK/tmpfs"
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Targets: each sets JOBTARGET (the job file's filename= or directory= line) and RUNDIR.
setup_tmpfs() {
  mkdir "$WORK/tmpfs"
  mount -t tmpfs -o size=$((SIZE + (64 << 20))) real-vs-fio "$WORK/tmpfs"
  truncate -s "$SIZE" "$WORK/tmpfs/img"
  TMPFS_LOOP=$(losetup --find --show "$WORK/tmpfs/img")
  LOOPS+=("$TMPFS_LOOP")
  # Real data in every block: reads of a hole in tmpfs would only map the zero page.
  dd if=/dev/urandom of="$TMPFS_LOOP" bs=1M count=$((SIZE >> 20)) oflag=direct status=none
}
setup_ext4() {
  truncate -s $((2 * EXT4_SIZE + (256 << 20))) "$WORK/ext4.img"
  EXT4_LOOP=$(losetup --find --show "$WORK/ext4.img")
  LOOPS+=("$EXT4_LOOP")
  mkfs.ext4 -q -F "$EXT4_LOOP"
  mkdir "$WORK/ext4"
  mount "$EXT4_LOOP" "$WORK/ext4"
  MOUNTS+=("$WORK/ext4")
  mkdir "$WORK/ext4/d"
}

# job TARGET CASE: the job file of one case (written by this script, used by both tools).
job() {
  local target=$1 engine rw bs qd
  IFS=: read -r engine rw bs qd <<<"$2"
  local f="$WORK/jobs/$target-$engine-$rw-$bs-qd$qd.fio"
  {
    echo "[global]"
    if [ "$target" = tmpfs ]; then
      echo "filename=$TMPFS_LOOP"
      echo "size=$SIZE"
    else
      echo "directory=$WORK/ext4/d"
      echo "size=$EXT4_SIZE"
    fi
    echo "direct=1"
    echo "ioengine=$engine"
    echo "rw=$rw"
    echo "bs=$bs"
    echo "iodepth=$qd"
    echo "runtime=$RUNTIME"
    echo "time_based=1"
    echo "[job]"
  } >"$f"
  echo "$f"
}

# One run of TOOL on job file F: appends "TARGET CASE ROUND TOOL IOPS LAT_NS" to $OUT.
run_tool() {
  local tool=$1 f=$2 target=$3 case=$4 round=$5 d=read
  case "$case" in *write*) d=write ;; esac
  if [ "$tool" = fio ]; then
    if [ -n "$FIO_EXTRA" ]; then
      # fio's own copy, with the extra options in [global].
      { echo "[global]"; tr ' ' '\n' <<<"$FIO_EXTRA"; sed 1d "$f"; } >"$f.fio-extra"
      f="$f.fio-extra"
    fi
    "${PIN[@]}" setsid fio --output-format=json --output="$WORK/out.json" "$f" >/dev/null &
  else
    "${PIN[@]}" setsid "$FLASHLAB" run "$f" --destroy-data --output-format json --output "$WORK/out.json" 2>/dev/null &
  fi
  TOOL_PID=$!
  wait "$TOOL_PID"
  TOOL_PID=
  # fio leaves its files; the next run (either tool) must lay its own out.
  rm -f "$WORK/ext4/d/"*
  jq -r --arg d "$d" --arg pre "$target $case $round $tool" \
    '.jobs[0][$d] | "\($pre) \(.iops) \(.lat_ns.mean) \(.clat_ns.mean // 0)"' "$WORK/out.json" >>"$OUT"
}

CASES="psync:randread:4k:1 psync:randwrite:4k:1 psync:read:1m:1
io_uring:randread:4k:1 io_uring:randwrite:4k:1 io_uring:read:1m:1
io_uring:randread:4k:32 io_uring:randwrite:4k:32 io_uring:read:1m:32"
mkdir "$WORK/jobs"
OUT="$WORK/results"
: >"$OUT"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(uname -r); $(nproc) CPUs; $(fio --version);" \
  "flashlab $(git rev-parse --short HEAD 2>/dev/null || echo '?'); $ROUNDS rounds x ${RUNTIME}s;" \
  "idle: $IDLE${PIN:+; pinned to CPU ${PIN[2]}}; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for target in $TARGETS; do
  case "$target" in
    tmpfs) setup_tmpfs; echo "# tmpfs: $TMPFS_LOOP over a $SIZE-byte file in tmpfs" ;;
    ext4) setup_ext4; echo "# ext4: $EXT4_SIZE-byte files on ext4 on $EXT4_LOOP over $WORK/ext4.img ($(df --output=fstype "$WORK" | tail -1))" ;;
    *) echo "$0: unknown target $target (tmpfs, ext4)" >&2; exit 2 ;;
  esac
  for c in $CASES; do
    [[ "$target:$c" =~ $ONLY ]] || continue
    f=$(job "$target" "$c")
    for round in $(seq "$ROUNDS"); do
      if [ $((round % 2)) -eq 1 ]; then order="fio flashlab"; else order="flashlab fio"; fi
      for tool in $order; do run_tool "$tool" "$f" "$target" "$c" "$round"; done
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$OUT" "$FIO_EXTRA" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    target, case, rnd, tool, iops, lat, clat = line.split()
    rows.setdefault((target, case), {}).setdefault(int(rnd), {})[tool] = (float(iops), float(lat) / 1000, float(clat) / 1000)
print(f"{'target':<7}{'engine':<9}{'case':<16}{'fio IOPS':>10}{'flashlab IOPS':>14}{'ratio':>7}{'median':>7}{'spread':>15}"
      f"{'fio lat us':>11}{'fl lat us':>10}{'diff us':>9}{'fio clat us':>12}")
for (target, case), by_round in rows.items():
    engine, rw, bs, qd = case.split(":")
    pairs = [r for r in by_round.values() if "fio" in r and "flashlab" in r]
    if not pairs:
        continue
    mean = lambda xs: sum(xs) / len(xs)
    ratios = [p["flashlab"][0] / p["fio"][0] for p in pairs]
    fio_iops, fl_iops = mean([p["fio"][0] for p in pairs]), mean([p["flashlab"][0] for p in pairs])
    fio_lat, fl_lat = mean([p["fio"][1] for p in pairs]), mean([p["flashlab"][1] for p in pairs])
    fio_clat = mean([p["fio"][2] for p in pairs])
    print(f"{target:<7}{engine:<9}{bs + ' ' + rw + ' QD' + qd:<16}{fio_iops:>10.0f}{fl_iops:>14.0f}"
          f"{mean(ratios):>7.3f}{sorted(ratios)[len(ratios) // 2] if len(ratios) % 2 else sum(sorted(ratios)[len(ratios) // 2 - 1:len(ratios) // 2 + 1]) / 2:>7.3f}{min(ratios):>8.3f}..{max(ratios):<5.3f}{fio_lat:>11.1f}{fl_lat:>10.1f}"
          f"{fl_lat - fio_lat:>+9.1f}{fio_clat:>12.1f}")
print("ratio: mean over rounds of flashlab/fio IOPS of the round's pair; median of them; spread: lowest..highest pair;")
print("lat: mean latency (fio lat_ns.mean; flashlab lat_ns.mean), averaged over the rounds; fio clat: clat_ns.mean")
if sys.argv[2:] and sys.argv[2]:
    print(f"fio's job files had these options added: {sys.argv[2]}")
PY
