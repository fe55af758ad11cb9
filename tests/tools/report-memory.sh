#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #25: `dutlab report TRACE` holds statistics, not records, so its
# memory does not grow with the trace.  A 3M-record trace (144 MB) must
# report under an address-space limit of the trace's size (it is mapped)
# plus 100 MB; the loading report (dutlab 68bd1b2) needed three times the
# trace and failed there with "out of memory reading the trace".
# usage: report-memory.sh DUTLAB TRACE_GEN
set -u
DUTLAB=$1
GEN=$2
TMP=$(mktemp -d /tmp/report-memory.XXXXXX) || exit 99
trap 'rm -rf "$TMP"' EXIT
trap 'exit 99' INT TERM
avail=$(df -Pk "$TMP" | awk 'NR == 2 { print $4 }')
[ "${avail:-0}" -gt 400000 ] || { echo "SKIP: less than 400 MB free in $TMP for a 144 MB trace"; exit 77; }
# AddressSanitizer reserves terabytes of shadow memory: no address-space limit fits it
grep -qa __asan_init "$DUTLAB" && { echo "SKIP: $DUTLAB is built with AddressSanitizer, which cannot run under ulimit -v"; exit 77; }

"$GEN" --records 3M --seed 9 --markers 3 "$TMP/t.dtr" || exit 99
size_kb=$(( $(stat -c %s "$TMP/t.dtr") / 1024 ))
limit_kb=$((size_kb + 100 * 1024))
(ulimit -v "$limit_kb" && exec "$DUTLAB" report "$TMP/t.dtr") >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" != 0 ]; then
	echo "FAIL: dutlab report exit $rc under a limit of $limit_kb KiB (trace $size_kb KiB):"
	cat "$TMP/err"
	exit 1
fi
grep -q "records:    3000000 in the trace" "$TMP/out" || { echo "FAIL: the report does not count 3000000 records:"; head -5 "$TMP/out"; exit 1; }
echo "PASS: 3M records ($size_kb KiB) reported within $limit_kb KiB of address space"
