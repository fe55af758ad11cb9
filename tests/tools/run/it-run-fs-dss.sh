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
# the Answer explains beyond m-time: per configuration the phase times, the queries that took
# the query time and the read pattern of the queries (the trace); against the first
# configuration the ratio, the plans and the queries the difference is in
for cfg in ext4-ordered ext4-writeback ext4-journal ext4-1k xfs; do
	it_section Answer | grep -qE "^- $cfg, step tpch: phases load [0-9.]+ s, keys [0-9.]+ s, analyze [0-9.]+ s, queries [0-9.]+ s \(one run\); query time mostly Q[0-9]+ [0-9]+%, Q[0-9]+ [0-9]+%, Q[0-9]+ [0-9]+% of the [0-9.]+ s of its 22 queries; during the queries the trace \(view device\) saw (no read|almost no read|[0-9,]+ reads of [0-9.,]+ MiB, [0-9]+% of the bytes sequential)" ||
		fail "the Answer has no phases, queries and reads of $cfg: $(it_section Answer | grep -- "- $cfg, step tpch")"
	[ "$cfg" = ext4-ordered ] && continue
	it_section Answer | grep -qE "^- $cfg against ext4-ordered, step tpch: [0-9.]+x (faster|slower) on the queries \(m-time [0-9.]+ s against [0-9.]+ s, the [0-9]+ queries whose plan is the same everywhere\); plans: (the same for every query|changed for Q[0-9]+)" ||
		fail "the Answer does not compare $cfg with ext4-ordered: $(it_section Answer | grep -- "- $cfg against")"
done
# a plan that changed is named in the Answer too, as changed
for q in $changed; do
	it_section Answer | grep -qE "plans: changed for ([^;]*, )?$q[,; (]" || fail "the Answer does not say $q's plan changed"
done
it_leftovers "$RUN" || fail "the run left things behind"
echo "PASS: fs-dss.ini (small) ran 5 configurations in $TOOK s; phases, 22 queries and m-time in the report"
