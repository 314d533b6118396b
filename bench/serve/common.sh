# Shared by bench/serve/*.sh: start `flashlab serve --attach` on a profile, and tear it all down
# on exit (unmount the test filesystem, SIGTERM the server, detach/unmount leftovers).
# Needs root, /dev/fuse, fio, jq, losetup, mkfs.ext4.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FLASHLAB=${FLASHLAB_BIN:-$ROOT/target/release/flashlab}
WORK=$(mktemp -d /tmp/flashlab-serve-bench.XXXXXX)
FUSEDIR=$WORK/fuse MNT=$WORK/mnt
mkdir -p "$FUSEDIR" "$MNT"
SERVER_PID= LOOPDEV=

cleanup() {
  mountpoint -q "$MNT" && umount "$MNT" || true
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID"; wait "$SERVER_PID" || true
  fi
  for d in $(losetup -j "$FUSEDIR/device" -O NAME -n 2>/dev/null); do losetup -d "$d" || true; done
  mountpoint -q "$FUSEDIR" && umount -l "$FUSEDIR" || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# start_server ARGS...: run flashlab serve --attach ARGS FUSEDIR; sets LOOPDEV.
start_server() {
  "$FLASHLAB" serve --attach "$@" "$FUSEDIR" >"$WORK/server.out" 2>"$WORK/server.err" &
  SERVER_PID=$!
  for _ in $(seq 300); do
    grep -q '^ready' "$WORK/server.out" 2>/dev/null && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  grep -q '^ready' "$WORK/server.out" || { echo "flashlab serve $* did not start:" >&2; cat "$WORK/server.err" >&2; exit 1; }
  LOOPDEV=$(awk '/^attached/{print $2}' "$WORK/server.out")
}

# stop_server: SIGTERM, wait, print the server's final report.
stop_server() {
  kill -TERM "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=
  sed -n '/final report/,$p' "$WORK/server.out"
}

# fio_json FILE-OR-DEV RW BS QD RUNTIME SIZE [extra fio args]: fio's JSON on stdout.
fio_json() {
  local f=$1 rw=$2 bs=$3 qd=$4 rt=$5 size=$6; shift 6
  fio --name=j --filename="$f" --rw="$rw" --bs="$bs" --iodepth="$qd" --ioengine=io_uring --direct=1 \
      --size="$size" --runtime="$rt" --time_based --randrepeat=0 --group_reporting --output-format=json "$@"
}
