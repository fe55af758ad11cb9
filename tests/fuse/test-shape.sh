#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dutfs --shape against a live mount (root, /dev/fuse).  One behaviour per run:
#   test-shape.sh SHAPE_IO SUBTEST
#     badfile        a broken rules file: exit 1, file:line message, nothing mounted
#     latency        a fixed 100 ms read latency reaches the application and the trace
#     queue          32 concurrent reads on a 4-channel queue model run 4 at a time
#     eio            an EIO fault on a glob fails the application's read; the daemon lives
#     short          a short fault halves a read; the trace flags it as injected
#     crash-device   write A, fsync, write B, crash -> EIO; crash again -> error;
#     crash-syscall  recover -> the file holds A (both views)
#     crash-fault    a crash fault (nth = 3 write): EIO from then on; recover -> synced content
#     preimage-bound writes beyond --preimage-max fail with ENOSPC and change nothing
#     barriers       barriers off: fsync is acknowledged without syncing; a crash loses it all
#     reload         a broken file keeps the old rules (error readable); a good one replaces them
#     relmap         --relmap tells index files from heap files for class = index
# Timing checks are generous (this machine is shared): they tell queueing from
# serialisation and a delay from none, not precise speeds.
. "$(dirname "$0")/lib.sh"

SHAPE_IO=$1
SUB=$2
DUT_TEST_NAME="shape-$SUB"
dut_need_root
dut_need_dutfs
[ -x "$SHAPE_IO" ] || dut_skip "shape_io helper not built ($SHAPE_IO)"
dut_tmpdir
B=$T/backing
M=$T/mnt
mkdir -p "$B" "$M"

ctl() { # COMMAND: write it to the control file; the status is in $STATUS
	printf '%s\n' "$1" >"$M/.dutfs/control" 2>/dev/null
	local rc=$?
	STATUS=$(cat "$M/.dutfs/control")
	return $rc
}

stat_num() { # KEY: first integer value of "KEY" in stats.json
	grep -o "\"$1\": *[0-9]*" "$M/.dutfs/stats.json" | head -1 | sed 's/.*: *//'
}

ms_of() { # "ok N ms=T" -> T as an integer
	sed -n 's/.*ms=\([0-9]*\).*/\1/p' <<<"$1"
}

daemon_alive() {
	kill -0 "$(cat "$M.pid")" 2>/dev/null
}

case $SUB in
badfile)
	printf '[model slow]\ntype = fixed\nread_latency = -5ms\nwrite_latency = 1ms\n' >"$T/bad.ini"
	out=$(timeout 30 "$DUTFS" "$B" "$M" --shape "$T/bad.ini" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || die "a broken rules file: exit $rc, expected 1 ($out)"
	grep -q "bad.ini:3:" <<<"$out" || die "the message does not name bad.ini:3: $out"
	! dut_is_mounted "$M" || { umount "$M"; die "a broken rules file mounted $M"; }
	out=$(timeout 30 "$DUTFS" "$B" "$M" --shape "$T/missing.ini" 2>&1)
	[ $? -eq 1 ] && grep -q "missing.ini" <<<"$out" || die "a missing rules file: $out"
	out=$(timeout 30 "$DUTFS" "$B" "$M" --relmap "$T/x.json" 2>&1)
	[ $? -eq 1 ] && grep -q -- "--shape" <<<"$out" || die "--relmap without --shape: $out"
	! dut_is_mounted "$M" || die "mounted after refused arguments"
	say "refused: $(head -1 <<<"$out")"
	;;
latency)
	cat >"$T/r.ini" <<-'EOF'
	[model slow]
	type = fixed
	read_latency = 100ms
	write_latency = 0
	[rule slow-files]
	path = slow*
	op = read
	model = slow
	EOF
	head -c 65536 /dev/urandom >"$B/slow1"
	cp "$B/slow1" "$B/fast1"
	dut_mount "$B" "$M" --shape "$T/r.ini" --view syscall --trace "$T/t.dtr"
	out=$("$SHAPE_IO" read "$M/slow1" 0 4096)
	ms=$(ms_of "$out")
	say "read of slow1 (100 ms model): $out"
	[ -n "$ms" ] && [ "$ms" -ge 95 ] && [ "$ms" -lt 3000 ] || die "expected ~100 ms, got: $out"
	out=$("$SHAPE_IO" read "$M/fast1" 0 4096)
	say "read of fast1 (no rule): $out"
	[ "$(stat_num delayed_replies)" -ge 1 ] || die "stats.json: no delayed reply counted"
	dut_umount "$M" || die "unmount had to be forced"
	rec=$("$SHAPE_IO" trace "$T/t.dtr" | grep '^READ path=slow1' | head -1)
	say "trace: $rec"
	lat=$(sed -n 's/.*lat_ms=\([0-9]*\).*/\1/p' <<<"$rec")
	[ -n "$lat" ] && [ "$lat" -ge 95 ] || die "the trace record does not carry the delay: $rec"
	grep -q 'shaped=1' <<<"$rec" || die "the trace record lacks the SHAPED flag: $rec"
	rec=$("$SHAPE_IO" trace "$T/t.dtr" | grep '^READ path=fast1' | head -1)
	grep -q 'shaped=0' <<<"$rec" || die "an unshaped read is flagged: $rec"
	;;
queue)
	# 4 channels x 40 ms: 32 requests at once take 8 rounds = 320 ms; served one
	# at a time they would take 1280 ms.
	cat >"$T/q.ini" <<-'EOF'
	[model four]
	type = queue
	channels = 4
	latency = 40ms
	[rule reads]
	path = q*
	op = read
	model = four
	EOF
	head -c $((32 * 4096)) /dev/urandom >"$B/qfile"
	dut_mount "$B" "$M" --shape "$T/q.ini" --view syscall --threads 8
	best=""
	for rep in 1 2 3; do
		out=$("$SHAPE_IO" conc "$M/qfile" 32 4096)
		say "32 concurrent reads, rep $rep: $out"
		grep -q 'errors=0' <<<"$out" || die "reads failed: $out"
		w=$(sed -n 's/wall_ms=\([0-9]*\).*/\1/p' <<<"$out")
		[ "$w" -ge 300 ] || die "faster than 8 rounds of 40 ms ($w ms): the model did not queue"
		[ -z "$best" ] || [ "$w" -lt "$best" ] && best=$w
	done
	# 8 worker threads, 32 requests: only late replies (no sleeping worker) allow this
	[ "$best" -lt 800 ] || die "best of 3: $best ms; serialised would be 1280 ms, queued 320 ms"
	say "best wall time $best ms (queued: 320 ms, serialised: 1280 ms)"
	;;
eio)
	cat >"$T/e.ini" <<-'EOF'
	[fault broken]
	type = error
	errno = EIO
	[rule bad-reads]
	path = bad*
	op = read
	fault = broken
	EOF
	echo good >"$B/good"
	echo bad >"$B/bad1"
	dut_mount "$B" "$M" --shape "$T/e.ini" --view syscall --trace "$T/t.dtr"
	out=$("$SHAPE_IO" read "$M/bad1" 0 4096)
	[ "$out" = "errno EIO" ] || die "read of bad1: $out, expected errno EIO"
	cat "$M/bad1" >/dev/null 2>"$T/cat.err" && die "cat bad1 succeeded"
	grep -q "Input/output error" "$T/cat.err" || die "cat bad1: $(cat "$T/cat.err")"
	daemon_alive || die "the daemon died after an injected EIO"
	[ "$(cat "$M/good")" = good ] || die "the file without a rule is not readable"
	[ "$(stat_num injected_errors)" -ge 2 ] || die "stats.json: injected_errors < 2"
	dut_umount "$M" || die "unmount had to be forced"
	rec=$("$SHAPE_IO" trace "$T/t.dtr" | grep '^READ path=bad1' | head -1)
	say "trace: $rec"
	grep -q 'result=-5 .*fault=1' <<<"$rec" || die "the trace does not show the injected EIO: $rec"
	;;
short)
	# reads of half*: half the bytes; the trace shows the short count as injected
	printf '[fault half]\ntype = short\nkeep = 50%%\n[rule halves]\npath = half*\nop = read\nfault = half\n' >"$T/s.ini"
	head -c 8192 /dev/urandom >"$B/half1"
	dut_mount "$B" "$M" --shape "$T/s.ini" --view syscall --trace "$T/t.dtr"
	out=$("$SHAPE_IO" read "$M/half1" 0 4096)
	grep -q '^ok 2048 ' <<<"$out" || die "a 4096-byte read with keep = 50%: $out"
	[ "$(stat_num short_transfers)" -ge 1 ] || die "stats.json: short_transfers is 0"
	dut_umount "$M" || die "unmount had to be forced"
	rec=$("$SHAPE_IO" trace "$T/t.dtr" | grep '^READ path=half1' | head -1)
	say "trace: $rec"
	grep -q 'result=2048 .*fault=1' <<<"$rec" || die "the trace does not show the short read: $rec"
	;;
crash-device|crash-syscall)
	view=${SUB#crash-}
	cat >"$T/u.ini" <<-'EOF'
	[fault volatile]
	type = unsynced
	[rule data]
	path = data*
	fault = volatile
	EOF
	head -c 8192 /dev/urandom >"$T/A"
	head -c 4096 /dev/urandom >"$T/B"
	dut_mount "$B" "$M" --shape "$T/u.ini" --view "$view"
	dd if="$T/A" of="$M/data" bs=8192 conv=fsync status=none || die "write A + fsync failed"
	# B overwrites the second half of A and extends the file by 4 KiB, no fsync
	dd if="$T/B" of="$M/data" bs=4096 seek=1 conv=notrunc status=none || die "write B failed"
	dd if="$T/B" of="$M/data" bs=4096 seek=2 conv=notrunc status=none || die "write B' failed"
	ctl crash || die "crash: $STATUS"
	[ "$STATUS" = ok ] || die "crash status: $STATUS"
	cat "$M/data" >/dev/null 2>"$T/err" && die "a read after the crash succeeded"
	grep -q "Input/output error" "$T/err" || die "read after crash: $(cat "$T/err")"
	touch "$M/newfile" 2>/dev/null && die "a create while crashed succeeded"
	mv "$M/data" "$M/data2" 2>/dev/null && die "a rename while crashed succeeded"
	ctl crash && die "a second crash was accepted"
	grep -q '^error: ' <<<"$STATUS" || die "second crash status: $STATUS"
	say "second crash: $STATUS"
	ctl recover || die "recover: $STATUS"
	cmp "$T/A" "$M/data" || die "after recover the file is not A (size $(stat -c %s "$M/data"))"
	cmp "$T/A" "$B/data" || die "the backing file is not A"
	daemon_alive || die "the daemon died"
	say "restored: $(grep -A9 '"last_crash"' "$M/.dutfs/stats.json" | tr -d ' \n')"
	ctl recover && die "recover while running was accepted"
	# an unsynced write past the end leaves a gap: the crash cuts the file back to A
	dd if="$T/B" of="$M/data" bs=4096 seek=4 conv=notrunc status=none || die "write past the end failed"
	ctl crash || die "crash 2: $STATUS"
	ctl recover || die "recover 2: $STATUS"
	cmp "$T/A" "$M/data" || die "after a write past the end and a crash: size $(stat -c %s "$M/data"), not A"
	;;
crash-fault)
	# the 3rd write to data* crashes the device: it fails, so does everything
	# after it; recover finds the file as it was at its fsync
	printf '[fault boom]\ntype = crash\nnth = 3\n[fault volatile]\ntype = unsynced\n[rule w]\npath = data*\nop = write\nfault = boom, volatile\n' >"$T/cf.ini"
	head -c 8192 /dev/urandom >"$T/A"
	dut_mount "$B" "$M" --shape "$T/cf.ini" --view syscall
	dd if="$T/A" of="$M/data" bs=8192 conv=fsync status=none || die "write 1 + fsync failed"
	dd if=/dev/zero of="$M/data" bs=4096 seek=1 count=1 conv=notrunc status=none || die "write 2 failed"
	dd if=/dev/zero of="$M/data" bs=4096 count=1 conv=notrunc status=none 2>"$T/err" \
		&& die "write 3 (the crash) succeeded"
	grep -q "Input/output error" "$T/err" || die "write 3: $(cat "$T/err")"
	cat "$M/data" >/dev/null 2>&1 && die "a read after the crash fault succeeded"
	ctl crash && die "crash after a crash fault was accepted"
	ctl recover || die "recover: $STATUS"
	cmp "$T/A" "$M/data" || die "after recover the file is not what was fsync'ed"
	say "crash fault on the 3rd write; recovered to the fsync'ed content"
	;;
fsync-eio-drop)
	# the 2nd fsync of data* fails with EIO: as on Linux after a writeback
	# error, what it should have made durable is dropped from the device at
	# once (the backing file), and the next fsync, which succeeds, does not
	# bring it back: a crash after it still finds the content of the 1st fsync
	cat >"$T/fe.ini" <<-'EOF'
	[fault eio]
	type = error
	errno = EIO
	nth = 2
	[fault volatile]
	type = unsynced
	[rule syncs]
	path = data*
	op = sync
	fault = eio
	[rule data]
	path = data*
	fault = volatile
	EOF
	head -c 8192 /dev/urandom >"$T/A"
	head -c 4096 /dev/urandom >"$T/B"
	head -c 4096 /dev/zero >"$T/Z"
	dut_mount "$B" "$M" --shape "$T/fe.ini" --view syscall
	dd if="$T/A" of="$M/data" bs=8192 conv=fsync status=none || die "write A + fsync 1 failed"
	dd if="$T/B" of="$M/data" bs=4096 seek=1 conv=notrunc status=none || die "write B failed"
	dd if="$T/B" of="$M/data" bs=4096 seek=2 conv=notrunc,fsync status=none 2>"$T/err" \
		&& die "fsync 2 (the injected EIO) succeeded"
	grep -q "Input/output error" "$T/err" || die "fsync 2: $(cat "$T/err")"
	cmp -n 8192 "$T/A" "$B/data" || die "after the failed fsync the backing file does not hold A (the data was not dropped)"
	[ "$(stat -c %s "$B/data")" = 12288 ] || die "the drop changed the size: $(stat -c %s "$B/data"), expected 12288"
	cmp -i 8192:0 -n 4096 "$B/data" "$T/Z" || die "the dropped extending write is not zeros in the backing file"
	[ "$(stat_num fsync_errors_dropping_data)" = 1 ] || die "stats.json: fsync_errors_dropping_data is not 1"
	[ "$(stat_num fsync_error_dropped_bytes)" = 8192 ] \
		|| die "stats.json: fsync_error_dropped_bytes $(stat_num fsync_error_dropped_bytes), expected 8192"
	sync "$M/data" || die "fsync 3 failed"
	ctl crash || die "crash: $STATUS"
	ctl recover || die "recover: $STATUS"
	cmp -n 8192 "$T/A" "$M/data" || die "after fsync 3 and a crash the file is not A: fsync 3 made the dropped data durable"
	daemon_alive || die "the daemon died"
	say "fsync EIO dropped 8 KiB from the device; a later fsync did not bring it back; the crash found A"
	;;
preimage-bound)
	# 64 KiB of pre-images: a write that needs more is refused (ENOSPC) and
	# leaves the file alone; an fsync frees the store
	printf '[fault volatile]\ntype = unsynced\n[rule all]\npath = data*\nfault = volatile\n' >"$T/u.ini"
	head -c 131072 /dev/urandom >"$T/A"
	dut_mount "$B" "$M" --shape "$T/u.ini" --view syscall --preimage-max 64k
	dd if="$T/A" of="$M/data" bs=131072 conv=fsync status=none || die "write A + fsync failed"
	dd if=/dev/zero of="$M/data" bs=32768 count=1 conv=notrunc status=none || die "a 32 KiB write failed"
	dd if=/dev/zero of="$M/data" bs=65536 seek=1 count=1 conv=notrunc status=none 2>"$T/err" \
		&& die "a write past the pre-image bound was accepted"
	grep -q "No space left on device" "$T/err" || die "refused write: $(cat "$T/err")"
	[ "$(stat_num refused_writes)" -ge 1 ] || die "stats.json: refused_writes is 0"
	cmp -s -n 65536 -i 65536 "$T/A" "$M/data" || die "the refused write changed the file"
	ctl crash || die "crash: $STATUS"
	ctl recover || die "recover: $STATUS"
	cmp "$T/A" "$M/data" || die "after the crash the file is not A"
	dd if=/dev/zero of="$M/data" bs=32768 count=1 conv=notrunc,fsync status=none || die "write after crash"
	dd if=/dev/zero of="$M/data" bs=65536 seek=1 count=1 conv=notrunc status=none \
		|| die "after an fsync the store did not free up"
	say "64 KiB bound: 32 KiB accepted, 64 KiB more refused with ENOSPC, crash restored A"
	;;
barriers)
	cat >"$T/nb.ini" <<-'EOF'
	[model cache]
	type = fixed
	read_latency = 0
	write_latency = 0
	barriers = off
	[fault volatile]
	type = unsynced
	[rule all]
	path = vol*
	model = cache
	fault = volatile
	EOF
	head -c 8192 /dev/urandom >"$T/A"
	dut_mount "$B" "$M" --shape "$T/nb.ini" --view syscall
	dd if="$T/A" of="$M/vol" bs=8192 conv=fsync status=none || die "write + fsync failed"
	[ "$(stat_num skipped_syncs)" -ge 1 ] || die "stats.json: no skipped sync"
	ctl crash || die "crash: $STATUS"
	ctl recover || die "recover: $STATUS"
	size=$(stat -c %s "$M/vol")
	[ "$size" -eq 0 ] || die "with barriers off the fsync'ed data survived the crash (size $size)"
	say "fsync acknowledged without syncing; after the crash the file is empty"
	;;
reload)
	cat >"$T/r.ini" <<-'EOF'
	[model slow]
	type = fixed
	read_latency = 50ms
	write_latency = 0
	[rule first]
	path = f*
	model = slow
	EOF
	echo x >"$B/f1"
	dut_mount "$B" "$M" --shape "$T/r.ini" --view syscall
	printf '[model slow]\ntype = fixed\nread_latency = 1ms\nwrite_latency = 0\n[rule second]\nmodel = nosuch\n' >"$T/r.ini"
	ctl reload && die "a broken rules file was accepted"
	grep -q '^error: .*r.ini:6:' <<<"$STATUS" || die "reload status does not name r.ini:6: $STATUS"
	say "broken reload: $STATUS"
	grep -Eq '"name": *"first"' "$M/.dutfs/stats.json" || die "the old rules did not stay"
	grep -Eq '"reload_error": *".*r.ini:6:' "$M/.dutfs/stats.json" || die "stats.json lacks reload_error"
	out=$("$SHAPE_IO" read "$M/f1" 0 4096)
	ms=$(ms_of "$out")
	[ -n "$ms" ] && [ "$ms" -ge 45 ] || die "the old 50 ms rule no longer applies: $out"
	printf '[rule second]\npath = nomatch*\nfault = e\n[fault e]\ntype = error\nerrno = EIO\n' >"$T/r.ini"
	ctl reload || die "a good rules file was refused: $STATUS"
	grep -Eq '"name": *"second"' "$M/.dutfs/stats.json" || die "the new rules are not in stats.json"
	grep -Eq '"reload_error": *null' "$M/.dutfs/stats.json" || die "reload_error not cleared"
	[ "$(cat "$M/f1")" = x ] || die "f1 unreadable after reload"
	say "reloaded: rule second active"
	;;
relmap)
	# class = index matches only what the relation map calls an index
	mkdir -p "$B/base/5"
	echo heap >"$B/base/5/16397"
	echo index >"$B/base/5/16400"
	cat >"$T/rm.json" <<-'EOF'
	{ "schema": "dutlab-relmap", "schema_version": 1, "captured_at": "2026-11-30T06:00:00Z",
	  "block_size": 8192, "processes": [],
	  "relations": [
	    { "db_oid": 5, "database": "d", "tablespace_oid": 1663, "tablespace": "pg_default",
	      "relfilenode": 16397, "oid": 16391, "schema": "public", "name": "t", "kind": "table",
	      "parent": null },
	    { "db_oid": 5, "database": "d", "tablespace_oid": 1663, "tablespace": "pg_default",
	      "relfilenode": 16400, "oid": 16399, "schema": "public", "name": "t_pkey",
	      "kind": "index", "parent": "public.t" } ] }
	EOF
	printf '[fault e]\ntype = error\nerrno = EIO\n[rule index-reads]\nclass = index\nop = read\nfault = e\n' >"$T/ri.ini"
	echo '{"schema": "something-else"}' >"$T/bad.json"
	out=$(timeout 30 "$DUTFS" "$B" "$M" --shape "$T/ri.ini" --relmap "$T/bad.json" 2>&1)
	[ $? -eq 1 ] && grep -q "bad.json" <<<"$out" || die "a bad relation map: $out"
	! dut_is_mounted "$M" || die "mounted with a bad relation map"
	dut_mount "$B" "$M" --shape "$T/ri.ini" --relmap "$T/rm.json" --view syscall
	[ "$(cat "$M/base/5/16397")" = heap ] || die "the table's file is not readable"
	cat "$M/base/5/16400" >/dev/null 2>&1 && die "the index's file was readable: class = index did not match"
	dut_umount "$M" || die "unmount had to be forced"
	# without the map every main fork is heap: the rule matches nothing
	dut_mount "$B" "$M" --shape "$T/ri.ini" --view syscall
	[ "$(cat "$M/base/5/16400")" = index ] || die "without a relation map the index file failed"
	say "class index from the relation map: index file EIO, table file fine; no map: both fine"
	;;
*)
	printf 'usage: test-shape.sh SHAPE_IO badfile|latency|queue|eio|short|crash-device|crash-syscall|crash-fault|preimage-bound|barriers|reload|relmap\n' >&2
	exit 99
	;;
esac
say "ok"
