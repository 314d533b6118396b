#!/usr/bin/env bash
# What Linux 6.1's F2FS does on a zoned device when a nearly full file is overwritten at random:
# how much it writes to each device, how many zones it resets, how much its garbage collector
# moves. The figures are the kernel's side of a comparison with flashlab's F2FS-on-zones model.
# This host's kernel has no F2FS, so it runs in a VM (vng, TCG) on the distribution's kernel.
#
# Setup, inside the VM:
#   - two null_blk devices made through configfs (/sys/kernel/config/nullb), memory-backed,
#     4 KiB blocks: nullb0, conventional, CONV_MIB (256 MiB); nullb1, zoned (host-managed),
#     ZONED_MIB (1 GiB) in ZONE_MIB (16 MiB) zones, zone capacity = zone size, no open/active
#     zone limit. (A configfs null_blk disk is named after its directory, hence nullb0/nullb1.)
#   - mkfs.f2fs -f -m -c /dev/nullb1 /dev/nullb0: F2FS's metadata on the conventional device,
#     its main area on the zones (one section per zone) and on what of nullb0 the metadata
#     leaves (13 of the 77 sections with the defaults), so both devices take data; mounted with
#     the defaults, which on a zoned device are mode=lfs and discard (zone resets).
#   - one file of 85 % of df's *available* space on the empty filesystem (its user capacity).
#   - phase seq : fio writes the file sequentially in 1 MiB writes (direct=1, end_fsync=1).
#   - phase rand: fio overwrites it with 4 KiB random writes, 2x the file in all (psync,
#                 direct=1, fsync every 32 writes), capped at RUNTIME seconds.
#   O_DIRECT writes fall back to buffered writes on a zoned F2FS (f2fs_force_buffered_io() in
#   fs/f2fs/file.c in 6.1), so direct=1 changes nothing; fsync is what forces the writes out.
# After each phase it keeps, in OUT_DIR: /sys/block/nullb{0,1}/stat (deltas give the MiB written
# to each device), /sys/kernel/debug/f2fs/status (checkpoints, GC calls, blocks moved),
# blkzone report of nullb1, and the phase's trace lines for zone resets (nullb_zone_op
# ZONE_RESET, or f2fs_issue_reset_zone) and f2fs_gc_end (sections and segments freed).
# On the host, after the VM exits, it prints OUT_DIR/summary.json: kernel, mkfs layout, file
# size, and the random phase's figures (write amplification = device MiB / fio MiB).
#
#   bench/f2fs-zoned-vm.sh [OUT_DIR]      (6-12 minutes under TCG with the defaults)
#   ZONE_MIB=16 ZONED_MIB=1024 CONV_MIB=256 RUNTIME=900 KERNEL=/boot/vmlinuz-6.1... (defaults)
# Needs: root, vng (FLASHLAB_VNG), qemu, fio, mkfs.f2fs and dump.f2fs (f2fs-tools), blkzone
# (util-linux), python3, and a 6.1 kernel in /boot with the f2fs and null_blk modules.
# Not a test: a measurement of one kernel's behaviour; if the random phase hits RUNTIME the
# summary says so (rand.complete false) and its figures cover only what fio wrote.
set -euo pipefail
ZONE_MIB=${ZONE_MIB:-16} ZONED_MIB=${ZONED_MIB:-1024} CONV_MIB=${CONV_MIB:-256} RUNTIME=${RUNTIME:-900}
if [ "${1:-}" = "--guest" ]; then
  OUT=$2
  cd "$OUT"
  modprobe null_blk nr_devices=0
  modprobe f2fs
  mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
  mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
  T=/sys/kernel/tracing
  [ -d $T/events ] || mount -t tracefs none $T
  C=/sys/kernel/config/nullb
  nullb() { # NAME attr=value...: a configfs null_blk device, powered on last
    local name=$1 kv; shift
    mkdir "$C/$name"
    for kv in "$@" power=1; do echo "${kv#*=}" > "$C/$name/${kv%%=*}"; done
  }
  nullb nullb0 blocksize=4096 memory_backed=1 size="$CONV_MIB"
  nullb nullb1 blocksize=4096 memory_backed=1 zoned=1 zone_size="$ZONE_MIB" zone_capacity=0 \
    zone_max_open=0 zone_max_active=0 size="$ZONED_MIB"
  for _ in $(seq 20); do [ -b /dev/nullb1 ] && break; sleep 0.5; done
  for d in nullb0 nullb1; do
    echo "$d zoned=$(cat /sys/block/$d/queue/zoned) chunk_sectors=$(cat /sys/block/$d/queue/chunk_sectors)" \
      "nr_zones=$(cat /sys/block/$d/queue/nr_zones) sectors=$(cat /sys/block/$d/size)"
  done | tee devices.txt
  [ "$(cat /sys/block/nullb1/queue/zoned)" = host-managed ] || { echo "nullb1 is not zoned"; exit 1; }
  mkfs.f2fs -f -m -c /dev/nullb1 /dev/nullb0 > mkfs.txt 2>&1 || { cat mkfs.txt; exit 1; }
  dump.f2fs -d 3 /dev/nullb0 > dump_sb.txt 2>&1 || true
  echo 32768 > $T/buffer_size_kb
  echo > $T/trace
  for e in nullb/nullb_zone_op f2fs/f2fs_issue_reset_zone f2fs/f2fs_gc_end; do
    if [ -d "$T/events/$e" ]; then echo 1 > "$T/events/$e/enable"; else echo "no trace event $e"; fi
  done
  M=$(mktemp -d /tmp/f2fszoned.XXXXXX)
  mount -t f2fs /dev/nullb0 "$M"
  grep " $M " /proc/mounts > mount.txt
  snap() { # PHASE: the devices' counters, F2FS's status, the zones, the phase's trace lines
    local p=$1 d
    for d in nullb0 nullb1; do cat /sys/block/$d/stat > "stat_${d}_$p.txt"; done
    cat /sys/kernel/debug/f2fs/status > "f2fs_status_$p.txt"
    blkzone report /dev/nullb1 > "zones_$p.txt"
    df -B1 "$M" > "df_$p.txt"
    echo 0 > $T/tracing_on
    grep -E 'ZONE_RESET|f2fs_issue_reset_zone|f2fs_gc_end' $T/trace > "trace_$p.txt" || true
    echo > $T/trace
    echo 1 > $T/tracing_on
  }
  snap 0_mounted
  AVAIL=$(df -B1 --output=avail "$M" | tail -1)
  FILE_MIB=$(( AVAIL * 85 / 100 / 1048576 ))
  echo "avail_bytes=$AVAIL file_mib=$FILE_MIB" | tee sizes.txt
  fio --name=seq --filename="$M/file" --size="${FILE_MIB}M" --bs=1M --rw=write --direct=1 \
    --ioengine=psync --end_fsync=1 --output-format=json --output=fio_seq.json
  sync
  snap 1_seq
  fio --name=rand --filename="$M/file" --size="${FILE_MIB}M" --io_size=$(( 2 * FILE_MIB ))M --bs=4k \
    --rw=randwrite --direct=1 --ioengine=psync --fsync=32 --runtime="$RUNTIME" \
    --output-format=json --output=fio_rand.json
  sync
  snap 2_rand
  umount "$M"
  uname -r > kernel
  cat /proc/loadavg > loadavg
  dmesg > dmesg.txt
  touch guest.done
  exit 0
fi

OUT=$(realpath -m "${1:-/tmp/flashlab-f2fs-zoned-vm}")
mkdir -p "$OUT"
rm -f "$OUT/guest.done" "$OUT/summary.json"
VNG=${FLASHLAB_VNG:-vng}
KERNEL=${KERNEL:-$(ls -1 /boot/vmlinuz-6.1.* 2>/dev/null | sort -V | tail -1)}
[ -n "$KERNEL" ] || { echo "no /boot/vmlinuz-6.1.*; set KERNEL"; exit 1; }
SELF=$(realpath "$0")
echo "kernel in the VM: $KERNEL (TCG); zones ${ZONE_MIB} MiB, zoned ${ZONED_MIB} MiB, conventional" \
  "${CONV_MIB} MiB, random phase capped at ${RUNTIME} s; started $(date -u +%H:%M:%S) UTC"
PATH="$(dirname "$(command -v "$VNG")"):$PATH" "$VNG" --run "$KERNEL" --user root --memory 3072M --cpus 1 \
  --disable-kvm --rwdir="$OUT" \
  --exec "ZONE_MIB=$ZONE_MIB ZONED_MIB=$ZONED_MIB CONV_MIB=$CONV_MIB RUNTIME=$RUNTIME bash $SELF --guest $OUT" \
  > "$OUT/console.log" 2>&1 || { tail -20 "$OUT/console.log"; exit 1; }
[ -f "$OUT/guest.done" ] || { echo "the guest did not finish:"; tail -20 "$OUT/console.log"; exit 1; }
echo "finished $(date -u +%H:%M:%S) UTC"
python3 - "$OUT" "$ZONE_MIB" "$ZONED_MIB" "$CONV_MIB" "$RUNTIME" <<'EOF'
import json, os, re, sys
out = sys.argv[1]
params = dict(zip(('zone_mib', 'zoned_mib', 'conv_mib', 'runtime_s'), map(int, sys.argv[2:6])))
def rd(name): return open(os.path.join(out, name)).read()
def stat(dev, p): return list(map(int, rd(f'stat_{dev}_{p}.txt').split()))
def mib(sectors): return round(sectors * 512 / 2**20, 1)
def written(dev, a, b): return mib(stat(dev, b)[6] - stat(dev, a)[6])   # field 7: sectors written
def read(dev, a, b): return mib(stat(dev, b)[2] - stat(dev, a)[2])      # field 3: sectors read
def status(p):
    s = rd(f'f2fs_status_{p}.txt')
    g = lambda pat: tuple(map(int, re.search(pat, s).groups()))
    cp, cp_bg = g(r'CP calls: (\d+) \(BG: (\d+)\)')
    gc, gc_bg = g(r'GC calls: (\d+) \(BG: (\d+)\)')
    moved, moved_bg = g(r'Try to move (\d+) blocks \(BG: (\d+)\)')
    (gc_data,), (gc_node,) = g(r'- data segments : (\d+)'), g(r'- node segments : (\d+)')
    return dict(cp=cp, gc_fg=gc - gc_bg, gc_bg=gc_bg, moved=moved, gc_segs=gc_data + gc_node)
def trace(p):
    t = dict(resets_nullb=0, resets_f2fs=0, sec_freed=0, seg_freed=0)
    for line in rd(f'trace_{p}.txt').splitlines():
        if 'nullb_zone_op' in line and 'ZONE_RESET' in line: t['resets_nullb'] += 1
        elif 'f2fs_issue_reset_zone' in line: t['resets_f2fs'] += 1
        elif 'f2fs_gc_end' in line:
            t['sec_freed'] += int(re.search(r'sec_freed = (\d+)', line)[1])
            t['seg_freed'] += int(re.search(r'seg_freed = (\d+)', line)[1])
    return t
def fio(name):
    t = rd(f'fio_{name}.json'); j = json.loads(t[t.index('{'):])['jobs'][0]
    return j['write']['io_bytes'], j['job_runtime'] / 1e3
def sb(field):
    m = re.search(rf'^{field}\s.*:\s*(\d+)\]', rd('dump_sb.txt'), re.M)
    return int(m[1]) if m else None
mk = rd('mkfs.txt')
main = re.search(r'\[MAIN: (\d+)\(OverProv:(\d+) Resv:(\d+)\)\]', rd('f2fs_status_0_mounted.txt'))
sizes = dict(kv.split('=') for kv in rd('sizes.txt').split())
file_mib = int(sizes['file_mib'])
s1, s2 = status('1_seq'), status('2_rand')
tr = trace('2_rand')
rand_bytes, rand_s = fio('rand')
seq_bytes, seq_s = fio('seq')
fio_mib = round(rand_bytes / 2**20, 1)
dev = {d: written(d, '1_seq', '2_rand') for d in ('nullb0', 'nullb1')}
summary = {
    'kernel': rd('kernel').strip(),
    'params': params,
    'mkfs': {
        'segs_per_sec': sb('segs_per_sec') or int(re.search(r'Segments per section = (\d+)', mk)[1]),
        'segment_count_main': sb('segment_count_main') or int(main[1]),
        'rsvd_segment_count': sb('rsvd_segment_count') or int(main[3]),
        'overprov_segment_count': sb('overprov_segment_count') or int(main[2]),
        'user_capacity_mib': round(int(sizes['avail_bytes']) / 2**20, 1),
    },
    'file_mib': file_mib,
    'seq': {'fio_write_mib': round(seq_bytes / 2**20, 1), 'seconds': seq_s,
            'nullb0_written_mib': written('nullb0', '0_mounted', '1_seq'),
            'nullb1_written_mib': written('nullb1', '0_mounted', '1_seq')},
    'rand': {
        'fio_write_mib': fio_mib, 'seconds': rand_s, 'complete': rand_bytes >= 2 * file_mib * 2**20,
        'nullb0_written_mib': dev['nullb0'], 'nullb1_written_mib': dev['nullb1'],
        'nullb0_read_mib': read('nullb0', '1_seq', '2_rand'), 'nullb1_read_mib': read('nullb1', '1_seq', '2_rand'),
        'write_amplification': round((dev['nullb0'] + dev['nullb1']) / fio_mib, 2) if fio_mib else None,
        'zone_resets': tr['resets_nullb'] or tr['resets_f2fs'],
        'fg_gc_calls': s2['gc_fg'] - s1['gc_fg'], 'bg_gc_calls': s2['gc_bg'] - s1['gc_bg'],
        'gc_sections_freed': tr['sec_freed'], 'gc_segments_freed': tr['seg_freed'],
        'gc_victim_segments': s2['gc_segs'] - s1['gc_segs'],
        'blocks_moved': s2['moved'] - s1['moved'],
        'checkpoints': s2['cp'] - s1['cp'],
    },
}
json.dump(summary, open(os.path.join(out, 'summary.json'), 'w'), indent=1)
print(json.dumps(summary, indent=1))
EOF
