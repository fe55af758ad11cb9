#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped experiment tools/experiments/hot-standby.ini, end to end in a
# small variant: the same three replica modes (none, async, sync), a
# primary and a standby each on an image of
# the shipped size in this test's directory,
# scale 1 and two 3 s tpcb-like runs; then the report: TPS per replica
# mode, and the replay lag the standby had in the async and sync runs.
. "$(dirname "$0")/it-lib.sh"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed"
[ -x "$PGBIN/pg_basebackup" ] || skip "no pg_basebackup"
it_small hot-standby -e 's/^scale = .*/scale = 1/' \
	-e 's/^duration = .*/duration = 3s/' >"$WORK/hs.ini"
it_run_small "$WORK/hs.ini"
it_check_report load read-write
for mode in none async sync; do
	row=$(it_rows read-write "replica=$mode" | head -1)
	[ -n "$row" ] || row=$(it_rows read-write "$mode" | head -1)
	[ -n "$row" ] || fail "step read-write: no row for replica $mode: $(it_step read-write)"
	awk -F'|' '{ exit !($3 + 0 == 2 && $4 ~ /[0-9]/) }' <<<"$row" || fail "step read-write, $mode: no TPS of 2 runs: $row"
done
# the replay lag of the standby per mode with a replica (p50, p99, max in ms)
for mode in async sync; do
	it_step read-write | grep -qE "^\| (replica=)?$mode \| 2 \| [0-9.,]+ \| [0-9.,]+ \| [0-9.,]+ \|" ||
		fail "step read-write: no replay lag for $mode: $(it_step read-write)"
done
it_section Answer | grep -q 'sync' || fail "the Answer does not name the replica modes"
for mode in async sync; do
	it_section Answer | grep -qE "^\| (replica=)?$mode \| read-write \| standby replay lag p99 \(ms\) \| [0-9.,]+ \|" ||
		fail "the Answer has no replay lag for $mode: $(it_section Answer | grep -i lag)"
done
it_leftovers "$RUN" || fail "the run left things behind"
echo "PASS: hot-standby.ini (small) ran 3 replica modes in $TOOK s; TPS and replay lag in the report"
