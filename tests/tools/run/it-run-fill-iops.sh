#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped experiment tools/experiments/fill-iops.ini, end to end in a
# small variant: the same steps (identify on an image with no file system,
# then a raw fill), with a 128 MiB image in this test's directory, one fill
# level, one queue depth and short rounds.  It used to fail at step 1 ("target
# drive has no filesystem (use raw = yes)") although --dry-run said "checks
# passed"; identify must name the loop image and the disk that holds it, and
# the report must read both documents.
. "$(dirname "$0")/it-lib.sh"
src="$(dirname "$0")/../../../tools/experiments/fill-iops.ini"
[ -f "$src" ] || fail "no $src"
# the shipped file with only paths and sizes made small
sed -e "s|^path = .*|path = $WORK/fill-iops.img|" -e 's|^size = .*|size = 128MiB|' \
    -e 's|^levels = .*|levels = 50%|' -e 's|^qd = .*|qd = 1|' -e 's|^round-time = .*|round-time = 1s|' \
    -e 's|^max-rounds = .*|max-rounds = 3|' "$src" >"$WORK/fill.ini"
grep -q '^\[step identify\]' "$WORK/fill.ini" || fail "the shipped experiment has no identify step any more"
out=$("$DUTLAB" run "$WORK/fill.ini" --dry-run --out "$WORK/dry" 2>&1) || fail "dry-run refused: $out"
grep -q 'checks passed' <<<"$out" || fail "dry-run: $out"
"$DUTLAB" run "$WORK/fill.ini" --out "$WORK/run" >"$WORK/out.txt" 2>&1 &
RUN_PID=$!
RUN_DUTLAB_PID=$RUN_PID
wait "$RUN_PID"; rc=$?; RUN_PID=
[ "$rc" -eq 0 ] || { tail -20 "$WORK/out.txt"; fail "dutlab run exited $rc"; }
doc=$(find "$WORK/run" -name 'identify*.json' | head -1)
[ -n "$doc" ] || fail "no identify document in $WORK/run"
jq -e '.target.kind == "block device" or .target.kind == "disk" or (.target.block_device.loop.backing_file // "" | startswith("'"$WORK"'/fill-iops.img"))' "$doc" >/dev/null ||
	fail "identify does not name the loop image: $(jq -c .target "$doc")"
[ -n "$(find "$WORK/run" -name 'fill*.json' | head -1)" ] || fail "no fill document"
"$DUTLAB" report "$WORK/run" >"$WORK/report.txt" 2>&1 || fail "dutlab report failed: $(tail -5 "$WORK/report.txt")"
grep -qi "loop image\|no flash" "$WORK/run/report.md" || fail "report.md does not say the target is a loop image: $(head -60 "$WORK/run/report.md")"
# the Answer has the IOPS of every fill level (here the one level, 50 %)
sed -n '/^## Answer/,/^## Run/p' "$WORK/run/report.md" | grep -qE '^\| default \| fill \| random-write IOPS at QD 1, fill 50% \| [0-9][0-9,]* \|' ||
	fail "the Answer has no IOPS row for the 50% fill level: $(sed -n '/^## Answer/,/^## Run/p' "$WORK/run/report.md")"
it_leftovers "$WORK/run" || fail "the run left things behind"
echo "PASS: fill-iops.ini (small) ran both steps; identify names the loop image"
