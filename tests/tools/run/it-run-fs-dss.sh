#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped experiment tools/experiments/fs-dss.ini, end to end in a
# small variant: the same five filesystems and the four DSS phases on the
# shipped image size (max_wal_size 1GB needs the room), in this test's
# directory, at SF 0.01.  Its result documents used to be rejected ("nesting too deep": the plans of Q5/Q21), which left
# the report empty; now each must be read, and the report must show the
# phase times of every configuration, the 22 queries, the m-time and the
# queries whose plan changed by name.
. "$(dirname "$0")/it-lib.sh"
for t in mkfs.ext4 mkfs.xfs; do
	command -v $t >/dev/null || skip "$t is not installed"
done
it_small fs-dss -e 's/^scale = .*/scale = 0.01/' >"$WORK/fs-dss.ini"
it_run_small "$WORK/fs-dss.ini"
it_check_report tpch
for cfg in ext4-ordered ext4-writeback ext4-journal ext4-1k xfs; do
	for ph in load keys analyze queries; do
		it_rows tpch "$cfg" | grep -qE "^\| $cfg \| $ph \| 1 \| [0-9.]+ \|" || fail "step tpch: no $ph time for $cfg"
	done
	it_rows tpch "$cfg" | grep -qE "^\| $cfg \| ([0-9.]+|undefined) \| " || fail "step tpch: no m-time row for $cfg"
done
n=$(it_step tpch | grep -cE '^\| Q[0-9]+ ')
[ "$n" -eq 22 ] || fail "step tpch: $n query rows, expected 22"
it_step tpch | grep -qE '^\| configuration \| >?m-time' || fail "step tpch: no m-time table"
# a query whose plan changed is named (in the query table and in the text)
changed=$(it_step tpch | grep -E '^\| Q[0-9]+ .*\*' | cut -d'|' -f2 | awk '{ print $1 }' | tr '\n' ' ')
for q in $changed; do
	it_step tpch | grep -v '^|' | grep -qw "$q" || fail "step tpch: $q's plan changed but no sentence names it"
done
echo "ok: plans changed: ${changed:-none}"
# the sentence under the m-time table says which plans changed, or that none did
it_expect tpch '^(Plans changed for Q[0-9]+|Every query kept its plan in every result)' "no sentence on changed plans"
it_section Answer | grep -qi 'm-time' || fail "the Answer has no m-time"
it_leftovers "$RUN" || fail "the run left things behind"
echo "PASS: fs-dss.ini (small) ran 5 configurations in $TOOK s; phases, 22 queries and m-time in the report"
