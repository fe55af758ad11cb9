#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test (root): the trace follows directory renames, open(O_TRUNC)
# and renames over an existing file (see trace_gaps.c), in the given view;
# and the exit message's record count equals the trace footer's.
#
#     test-gaps.sh TRACE_GAPS_BINARY device|syscall
. "$(dirname "$0")/../lib.sh"

TG=${1:?usage: test-gaps.sh TRACE_GAPS device|syscall}
VIEW=${2:?usage: test-gaps.sh TRACE_GAPS device|syscall}
DUT_TEST_NAME="trace-gaps-$VIEW${DUTFS_TRANSPORT:+-$DUTFS_TRANSPORT}"

dut_need_root
dut_need_dutfs

dut_tmpdir
mkdir -p "$T/backing" "$T/mnt"
# foreground, so the exit message lands in a file we can read
"$DUTFS" "$T/backing" "$T/mnt" -f --view "$VIEW" --trace "$T/trace.dtr" 2>"$T/dutfs.err" &
DPID=$!
dut_defer "kill $DPID 2>/dev/null; dut_wait_pid $DPID 10 || kill -9 $DPID 2>/dev/null"
dut_defer "dut_is_mounted '$T/mnt' && { umount '$T/mnt' || umount -l '$T/mnt'; }"
for _ in $(seq 100); do
	dut_is_mounted "$T/mnt" && [ -e "$T/mnt/.dutfs/control" ] && break
	kill -0 "$DPID" 2>/dev/null || { cat "$T/dutfs.err" >&2; die "dutfs exited before mounting"; }
	sleep 0.1
done
dut_is_mounted "$T/mnt" || die "dutfs did not mount $T/mnt within 10 s"
dut_check_transport "$T/mnt"

pid=$(timeout 60 "$TG" run "$T/mnt") || die "the access pattern failed on the mount (see above)"
timeout 30 umount "$T/mnt" || die "umount $T/mnt failed"
dut_wait_pid "$DPID" 30 || die "dutfs still running 30 s after the unmount"
wait "$DPID" || die "dutfs exited with status $? (stderr: $(cat "$T/dutfs.err"))"
written=$(sed -n 's/.*unmounted .*; \([0-9]*\) records written, \([0-9]*\) dropped.*/\1/p' "$T/dutfs.err")
[ -n "$written" ] || die "no exit message \"unmounted MNT; N records written, M dropped\" (got: $(cat "$T/dutfs.err"))"
"$TG" check "$T/trace.dtr" "$pid" "$written" || die "the trace does not follow the renames/truncation"
say "PASS ($written records)"
