#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped experiment tools/experiments/placement.ini, end to end in a
# small variant: the same four placements of tables and indexes on a
# shaped HDD and a shaped SSD, each an image of the shipped size in
# this test's directory, in the same 40 MiB memory budget, at scale 1 with 3 s runs
# (the data set then fits in the budget: this tests that every step runs
# and is reported, not the placement's answer).
. "$(dirname "$0")/it-lib.sh"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed"
it_small placement -e 's/^scale = .*/scale = 1/' \
	-e 's/^duration = .*/duration = 3s/' -e 's/^progress = .*/progress = 1s/' >"$WORK/placement.ini"
grep -q "^shape = /" "$WORK/placement.ini" || fail "the shapes' paths were not made absolute"
it_run_small "$WORK/placement.ini"
it_check_report load read-write read-only
n=0
for s in read-write read-only; do
	while read -r row; do
		awk -F'|' '{ exit !($3 + 0 == 1 && $4 ~ /[0-9]/ && $7 ~ /[0-9]/ && $8 ~ /[0-9]/) }' <<<"$row" ||
			fail "step $s: a figure is missing: $row"
		n=$((n + 1))
	done < <(it_rows "$s" "tables=[^|]+")
done
[ "$n" -eq 8 ] || fail "$n OLTP rows, expected 2 steps x 4 placements: $(it_step read-write)"
it_section Answer | grep -q 'budget' || fail "the Answer does not state the memory budget"
it_leftovers "$RUN" || fail "the run left things behind"
echo "PASS: placement.ini (small) ran 4 placements in $TOOK s"
