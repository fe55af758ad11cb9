#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: dutfs refuses bad input with a clear message, a non-zero
# exit, and nothing left mounted or running; the trace reader says how far
# it got in a trace cut short in the middle of a record.
#
#     test-bad-input.sh TRACE_EXACT_BINARY
. "$(dirname "$0")/lib.sh"

TE=${1:?usage: test-bad-input.sh TRACE_EXACT}
DUTLAB=${DUTLAB:-$DUT_BUILD_ROOT/tools/dutlab}

dut_need_root
dut_need_dutfs

dut_tmpdir
mkdir "$T/backing" "$T/mnt" "$T/other"
touch "$T/plainfile"
failures=0

mount_count() { M=${1// /\\040} awk '$5 == ENVIRON["M"] { n++ } END { print n + 0 }' /proc/self/mountinfo; }

# expect_refusal NAME REGEX MNT EXPECTED_MOUNTS -- dutfs arguments...
expect_refusal() {
	local name=$1 re=$2 mnt=$3 mounts=$4 rc pid=""
	shift 5
	rm -f "$T/bad.pid"
	timeout 20 "$DUTFS" "$@" --pidfile "$T/bad.pid" >"$T/out" 2>"$T/err"
	rc=$?
	[ -s "$T/bad.pid" ] && pid=$(cat "$T/bad.pid")
	if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
		say "FAIL $name: dutfs exited $rc (expected a refusal)"
		failures=$((failures + 1))
		# Clean up whatever it mounted.
		[ "$(mount_count "$mnt")" -gt "$mounts" ] && { umount "$mnt" 2>/dev/null || umount -l "$mnt"; }
		[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
		return
	fi
	if ! grep -Eiq -- "$re" "$T/err"; then
		say "FAIL $name: stderr does not match /$re/: $(head -c 300 "$T/err")"
		failures=$((failures + 1))
	elif [ "$(mount_count "$mnt")" -ne "$mounts" ]; then
		say "FAIL $name: $mnt has $(mount_count "$mnt") mounts after the refusal (expected $mounts)"
		failures=$((failures + 1))
		umount -l "$mnt" 2>/dev/null
	elif [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		say "FAIL $name: a dutfs daemon (pid $pid) is still running after the refusal"
		failures=$((failures + 1))
		kill -9 "$pid"
	else
		say "ok   $name: exit $rc, \"$(head -1 "$T/err" | head -c 160)\""
	fi
}

expect_refusal "missing backing dir" "$T/nonexistent.*(no such|not exist|missing|not found)|(no such|not exist|missing|not found).*$T/nonexistent" \
	"$T/mnt" 0 -- "$T/nonexistent" "$T/mnt"
expect_refusal "backing dir is a file" "not a directory" \
	"$T/mnt" 0 -- "$T/plainfile" "$T/mnt"
expect_refusal "mountpoint not a directory" "not a directory" \
	"$T/plainfile" 0 -- "$T/backing" "$T/plainfile"
expect_refusal "missing mountpoint" "$T/nomnt.*(no such|not exist|missing|not found)|(no such|not exist|missing|not found).*$T/nomnt" \
	"$T/nomnt" 0 -- "$T/backing" "$T/nomnt"
expect_refusal "backing dir == mountpoint" "same|itself|inside|within|below|overlap" \
	"$T/mnt" 0 -- "$T/mnt" "$T/mnt"
mkdir -p "$T/mnt/sub"
expect_refusal "backing dir inside mountpoint" "inside|within|below|under|overlap|contain" \
	"$T/mnt" 0 -- "$T/mnt/sub" "$T/mnt"
expect_refusal "unwritable trace path (no such directory)" "$T/nodir/t.dtr|trace" \
	"$T/mnt" 0 -- "$T/backing" "$T/mnt" --trace "$T/nodir/t.dtr"
expect_refusal "trace path is a directory" "$T/other|trace" \
	"$T/mnt" 0 -- "$T/backing" "$T/mnt" --trace "$T/other"
expect_refusal "unknown view" "view" \
	"$T/mnt" 0 -- "$T/backing" "$T/mnt" --view sideways

# Mountpoint busy: already mounted by dutfs.
dut_mount "$T/backing" "$T/mnt" --trace "$T/good.dtr"
expect_refusal "mountpoint already mounted" "already|busy|mounted" \
	"$T/mnt" 1 -- "$T/other" "$T/mnt"
# dutfs found its own mount in mountinfo and gave it a disk's writeback share
# (fuse/main.c tune_bdi: the kernel's 1 % would throttle a data load early)
dev=$(mountpoint -d "$T/mnt")
ratio=$(cat "/sys/class/bdi/$dev/max_ratio" 2>/dev/null)
if [ "$ratio" = 100 ]; then
	say "ok   writeback share of the mount's bdi $dev: max_ratio $ratio"
else
	say "FAIL the mount's bdi $dev has max_ratio '${ratio:-unreadable}', expected 100"
	failures=$((failures + 1))
fi
# A mount point with a space: mountinfo writes it as \040, and the busy check must decode it.
mkdir "$T/mnt sp"
dut_mount "$T/other" "$T/mnt sp"
expect_refusal "mountpoint with a space already mounted" "already|busy|mounted" \
	"$T/mnt sp" 1 -- "$T/backing" "$T/mnt sp"
dut_umount "$T/mnt sp" || die "dutfs needed a forced unmount of '$T/mnt sp'"
# Produce some records, then unmount cleanly.
for i in 1 2 3 4 5 6 7 8; do
	dd if=/dev/zero of="$T/mnt/f$i" bs=8k count=4 oflag=direct conv=fsync status=none \
		|| die "writing through the mount failed"
done
dut_umount "$T/mnt" || die "dutfs needed a forced unmount"

# A trace cut in the middle of a record: the reader keeps the whole frames
# before it and says where it stopped.
read -r cut_at frame_at <<<"$("$TE" cut "$T/good.dtr" "$T/cut.dtr")" || die "could not cut the trace"
full=$("$TE" info "$T/good.dtr") || die "the reader rejects the complete trace: $full"
part=$("$TE" info "$T/cut.dtr") || die "the reader rejects a truncated trace instead of reading up to the cut: $part"
say "complete trace: $full"
say "cut at byte $cut_at (frame at $frame_at): $(echo "$part" | tr '\n' ' ')"
echo "$part" | grep -q "truncated yes valid_bytes $frame_at\$" \
	|| { say "FAIL truncated trace: the reader should stop at byte $frame_at, where the partial frame starts"; failures=$((failures + 1)); }
echo "$part" | grep -Eiq "^message: .*truncated.*$frame_at" \
	|| { say "FAIL truncated trace: no message saying it is truncated at byte $frame_at"; failures=$((failures + 1)); }
if [ -x "$DUTLAB" ] && "$DUTLAB" report --help >/dev/null 2>&1; then
	timeout 60 "$DUTLAB" report "$T/cut.dtr" >"$T/rep.out" 2>"$T/rep.err"
	rc=$?
	if grep -Eiq "truncat" "$T/rep.err" "$T/rep.out"; then
		say "ok   dutlab report on the truncated trace (exit $rc): $(grep -Eih -m1 truncat "$T/rep.err" "$T/rep.out" | head -c 200)"
	else
		say "FAIL dutlab report on a truncated trace does not say it is truncated (exit $rc)"
		failures=$((failures + 1))
	fi
else
	say "note: dutlab report is not available yet; only the lib reader was checked on the truncated trace"
fi

[ $failures -eq 0 ] || die "$failures bad-input case(s) failed"
say "PASS"
