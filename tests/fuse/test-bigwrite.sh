#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: as root, the device view over /dev/fuse asks for 8 MiB
# write requests (fuse/main.c big_requests; received by fuse/loop.c):
# - the start-up line says so, and what it raised;
# - a buffered 64 MiB write with fsync reaches the daemon as writeback WRITEs
#   larger than 1 MiB (the trace), by splice (stats.json), and an O_DIRECT
#   8 MiB write arrives in memory-aligned pieces just as large;
# - every byte arrives once, and the file reads back intact through the mount
#   and from the backing file;
# - a WRITE that fails with its data still in the worker's pipe (the backing
#   file system full) leaves no stale data for the next request.
# It fails on a dutfs that keeps libfuse's 1 MiB requests.  The sysctls
# dutfs raises are put back afterwards (dutfs itself leaves them raised).
. "$(dirname "$0")/lib.sh"

DUTLAB=${DUTLAB:-$DUT_BUILD_ROOT/tools/dutlab}

dut_need_root
dut_need_dutfs
dut_need_prog jq jq
[ -x "$DUTLAB" ] || dut_skip "dutlab is not built ($DUTLAB)"
[ "${DUTFS_TRANSPORT:-dev}" = dev ] || dut_skip "large requests are for /dev/fuse only (DUTFS_TRANSPORT=$DUTFS_TRANSPORT)"
[ -w /proc/sys/fs/fuse/max_pages_limit ] || dut_skip "this kernel has no writable fs.fuse.max_pages_limit (Linux 6.13+)"

old_pages=$(cat /proc/sys/fs/fuse/max_pages_limit)
old_pipe=$(cat /proc/sys/fs/pipe-max-size)
dut_defer "echo $old_pages >/proc/sys/fs/fuse/max_pages_limit; echo $old_pipe >/proc/sys/fs/pipe-max-size"
dut_tmpdir
head -c $((64 << 20)) /dev/urandom >"$T/src" || die "cannot make test data"

dut_mount "$T/backing" "$T/mnt" --trace "$T/t.dtr" 2>"$T/mount.log"
line=$(cat "$T/mount.log")
say "start-up line: $line"
[[ $line == *"8188 KiB write requests"* ]] || die "the start-up line does not announce 8188 KiB write requests"
[ "$(cat /proc/sys/fs/fuse/max_pages_limit)" -ge 2048 ] || die "fs.fuse.max_pages_limit is below 2048 after the mount"

timeout 120 dd if="$T/src" of="$T/mnt/f" bs=1M conv=fsync status=none || die "buffered write failed"
timeout 120 dd if="$T/src" of="$T/mnt/g" bs=8M oflag=direct status=none || die "O_DIRECT write failed"
spliced=$(jq -r '.requests.write_spliced' "$T/mnt/.dutfs/stats.json") || die "cannot read stats.json"
timeout 60 cmp "$T/src" "$T/mnt/f" || die "f read through the mount differs from what was written"
timeout 60 cmp "$T/src" "$T/mnt/g" || die "g read through the mount differs from what was written"

# a small file system below the mount: a 16 MiB write fills it with data still in the pipe
mkdir -p "$T/backing/small"
mount -t tmpfs -o size=4m tmpfs "$T/backing/small" || die "cannot mount a tmpfs for the full-disk case"
dut_defer "umount -l '$T/backing/small' 2>/dev/null"
if timeout 60 dd if="$T/src" of="$T/mnt/small/full" bs=16M count=1 oflag=direct status=none 2>/dev/null; then
	die "a 16 MiB write to a 4 MiB file system succeeded"
fi
# the requests after it are answered with their own data
for i in 1 2 3; do
	timeout 60 dd if="$T/mnt/f" of="$T/chunk" bs=4k skip=$((i * 100)) count=16 iflag=direct status=none \
		|| die "O_DIRECT read $i after the failed write failed"
	cmp -s "$T/chunk" <(dd if="$T/src" bs=4k skip=$((i * 100)) count=16 status=none) \
		|| die "O_DIRECT read $i after the failed write returned wrong data"
done
timeout 60 dd if="$T/src" of="$T/mnt/h" bs=8M count=2 oflag=direct status=none || die "O_DIRECT write after the failed one failed"
timeout 60 cmp <(head -c $((16 << 20)) "$T/src") "$T/mnt/h" || die "h differs after a failed write before it"
umount -l "$T/backing/small"

dut_umount "$T/mnt" || die "dutfs needed a forced unmount"
cmp "$T/src" "$T/backing/f" || die "the backing file f differs from what was written"
cmp "$T/src" "$T/backing/g" || die "the backing file g differs from what was written"

"$DUTLAB" export "$T/t.dtr" --format csv --ops write -o "$T/w.csv" 2>/dev/null || die "dutlab export failed"
for f in f g; do
	read -r covered largest < <(awk -F, -v f=$f 'NR > 1 && $5 == f && $10 >= 0 { print $8, $9 }' "$T/w.csv" | sort -n |
		awk '{ if ($1 < end) { print "overlap"; exit } ; end = $1 + $2; sum += $2; if ($2 > max) max = $2 } END { if (end) print sum, max }')
	say "$f: write records cover $covered bytes, largest $largest"
	[ "$covered" = $((64 << 20)) ] || die "$f: the trace's writes cover $covered bytes, expected $((64 << 20)) without overlap"
	[ "$largest" -gt $((1 << 20)) ] || die "$f: no WRITE larger than 1 MiB (largest $largest bytes)"
done
[ "$spliced" -ge 1 ] || die "no WRITE came by splice"
say "PASS"
