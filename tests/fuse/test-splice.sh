#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: the device view switches libfuse's splice read on and
# off (fuse/loop.c) without losing or mixing up a request.
# - large writeback writes right after the mount arrive by splice
#   (stats.json requests.write_spliced);
# - then, after a second with only small requests (O_DIRECT 4 KiB reads:
#   splice goes off), the workers that spliced before receive by read():
#   every read must be answered with the right data (a worker buffer still
#   marked as a pipe would hang or garble them);
# - a second large write burst comes while splice is off: its first writes
#   arrive in memory, the rest by splice again; the file reads back intact
#   through the mount and from the backing file, and the trace has every
#   byte written exactly once per burst.
. "$(dirname "$0")/lib.sh"

DUTLAB=${DUTLAB:-$DUT_BUILD_ROOT/tools/dutlab}

dut_need_root
dut_need_dutfs
dut_need_prog jq jq
[ -x "$DUTLAB" ] || dut_skip "dutlab is not built ($DUTLAB)"

dut_tmpdir
head -c $((64 << 20)) /dev/urandom >"$T/src" || die "cannot make test data"
# Two workers: a burst must have more WRITEs than there are workers waiting
# in a read() receive, and as root a 32 MiB burst is only 4-5 WRITEs of up
# to 8 MiB (fuse/main.c big_requests).
dut_mount "$T/backing" "$T/mnt" --trace "$T/t.dtr" --threads 2

req() { jq -r ".requests.$1 // 0" "$T/mnt/.dutfs/stats.json" || die "cannot read stats.json"; }

# 800 O_DIRECT 4 KiB reads of the first 32 MiB through the mount (each one a
# READ request), compared with the source
small_reads() { # LABEL
	local i off
	for ((i = 0; i < 40; i++)); do
		off=$(( (i * 197) % 400 ))
		timeout 60 dd if="$T/mnt/f" of="$T/chunk" bs=4k skip=$((off * 20)) count=20 iflag=direct status=none \
			|| die "$1: O_DIRECT read $i through the mount failed or hung"
		cmp -s "$T/chunk" <(dd if="$T/src" bs=4k skip=$((off * 20)) count=20 status=none) \
			|| die "$1: O_DIRECT read $i returned wrong data"
	done
}

timeout 120 dd if="$T/src" of="$T/mnt/f" bs=1M count=32 conv=fsync status=none || die "first write burst failed"
s1=$(req write_spliced)
w1=$(req write)
say "first burst: $w1 WRITEs, $s1 received by splice"
[ "$s1" -ge 1 ] || die "no WRITE of the first burst came by splice (requests.write_spliced = 0)"

sleep 1.5
small_reads "after the first burst"
sleep 1.5
small_reads "splice off"
r=$(req read)
say "$r READs answered"
[ "$r" -ge 800 ] || die "only $r READ requests for 800 O_DIRECT reads"

timeout 120 dd if="$T/src" of="$T/mnt/f" bs=1M skip=32 seek=32 count=32 conv=notrunc,fsync status=none \
	|| die "second write burst failed"
s2=$(req write_spliced)
w2=$(req write)
say "second burst: $((w2 - w1)) WRITEs, $((s2 - s1)) by splice"
[ "$s2" -gt "$s1" ] || die "no WRITE of the second burst came by splice: splice read did not come back on"
# the workers waiting in a read() receive when it began take its first writes in memory
[ "$((s2 - s1))" -lt "$((w2 - w1))" ] || die "every WRITE of the second burst came by splice: splice read never went off"

sleep 1.5
small_reads "after the second burst"
timeout 60 cmp "$T/src" "$T/mnt/f" || die "the file read through the mount differs from what was written"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount"
cmp "$T/src" "$T/backing/f" || die "the backing file differs from what was written"

# every byte written once: the write records cover 64 MiB, no overlap
"$DUTLAB" export "$T/t.dtr" --format csv --ops write -o "$T/w.csv" 2>/dev/null || die "dutlab export failed"
covered=$(awk -F, 'NR > 1 && $10 >= 0 { print $8, $9 }' "$T/w.csv" | sort -n |
	awk '{ if ($1 < end) { print "overlap"; exit } ; end = $1 + $2; sum += $2 } END { if (end) print sum }')
say "write records cover $covered bytes"
[ "$covered" = $((64 << 20)) ] || die "the trace's writes cover $covered bytes, expected $((64 << 20)) without overlap"
say "PASS"
