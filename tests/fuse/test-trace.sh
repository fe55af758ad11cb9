#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: a known access pattern gives exactly the expected trace
# records and phase markers (see trace_exact.c), in the given view; and the
# control directory is hidden from readdir but reachable by name.
#
#     test-trace.sh TRACE_EXACT_BINARY device|syscall
. "$(dirname "$0")/lib.sh"

TE=${1:?usage: test-trace.sh TRACE_EXACT device|syscall}
VIEW=${2:?usage: test-trace.sh TRACE_EXACT device|syscall}
DUT_TEST_NAME="trace-exact-$VIEW"

dut_need_root
dut_need_dutfs

dut_tmpdir
dut_mount "$T/backing" "$T/mnt" --view "$VIEW" --trace "$T/trace.dtr"

ls -a "$T/mnt" | grep -qx .dutfs && die "readdir of the mount root lists .dutfs (it must be hidden)"
[ -r "$T/mnt/.dutfs/stats.json" ] || die "$T/mnt/.dutfs/stats.json is not reachable by name"
[ -w "$T/mnt/.dutfs/control" ] || die "$T/mnt/.dutfs/control is not writable by root"

pid=$(timeout 60 "$TE" run "$T/mnt") || die "the access pattern failed on the mount (see above)"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount or SIGKILL to stop"
"$TE" check "$T/trace.dtr" "$VIEW" "$pid" || die "the trace does not match the access pattern"
say "PASS"
