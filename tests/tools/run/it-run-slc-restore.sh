#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped experiment tools/experiments/slc-restore.ini, end to end in a
# small variant: the same six steps (identify on the mounted image, the
# write-cache knee with an idle pause, load, connect-bound, select-only,
# restore) on the shipped image size in this test's directory, a 128 MiB slc span,
# a 2 s idle, scale 2 and a 3 s select-only run.  It used to fail at step 1
# (identify given the mount directory); the SLC table said "none found"
# although cache.log had a median, and the after-idle pass was dropped.
. "$(dirname "$0")/it-lib.sh"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed"
it_small slc-restore \
	-e '/^\[step cache\]/,/^\[/ s/^size = .*/size = 128MiB/' -e 's/^idle = .*/idle = 2s/' \
	-e 's/^scale = .*/scale = 2/' -e 's/^duration = .*/duration = 3s/' >"$WORK/slc.ini"
grep -q '^\[step identify\]' "$WORK/slc.ini" || fail "the shipped experiment has no identify step any more"
it_run_small "$WORK/slc.ini"
it_check_report identify cache load connect-bound select-only restore
m=$RUN/manifest.json
cfg=$(jq -r '.configs[0].name' "$m")   # one configuration (no matrix)
# identify: the mount's device (the loop device over the image), its link and ceiling
row=$(it_rows identify "$cfg")
[ -n "$row" ] || fail "step identify: no row"
grep -q "loop" <<<"$row" || fail "step identify does not name the loop device: $row"
awk -F'|' '{ exit !($3 ~ /[^ ]/ && $6 ~ /[^ -]/ && $8 ~ /[^ -]/) }' <<<"$row" || fail "step identify: target, device or link missing: $row"
jq -e '[.configs[0].reps[0].steps[] | select(.name == "identify") | .device |
	select(.name != null and .link != null and (.experiment_path // "" | endswith("/slc-restore.img")))] | length == 1' "$m" >/dev/null ||
	fail "manifest.json does not record the identified device, its link and the experiment's target: $(jq -c '.configs[0].reps[0].steps[0].device' "$m")"
it_section Answer | grep -q "Device under test" || fail "the Answer does not name the device under test"
# the Answer's write-cache rows: the first pass and the one after the idle wait,
# each a size or "none found" with the level it held
for pass in "write cache (MiB" "write cache after the idle wait"; do
	it_section Answer | grep -F "$pass" | grep -qE '\| [0-9][0-9.,]* \||none found \(one level, [0-9.,]+ MB/s\)' ||
		fail "the Answer has no '$pass' row with a figure: $(it_section Answer | grep -F 'write cache')"
done
# slc: both passes with their levels (MB/s), and a knee or the reason there is none
it_expect cache "^\| $cfg \| 1 \| write \| [0-9.,]+ \| [0-9.,]+ \|" "no first pass with its throughput"
it_expect cache "^\| $cfg \| 1 \| write after 2 s idle \| [0-9.,]+ \| [0-9.,]+ \|" "no after-idle pass"
! it_step cache | grep -q "none found" || fail "step cache says 'none found' without a level or a reason: $(it_step cache)"
# connect-bound: TPS including and excluding connections, and the connection time
it_expect connect-bound "^\| $cfg \| 1 \| [0-9.,]+ \|" "no TPS"
it_rows connect-bound "$cfg" | awk -F'|' '{ exit !($10 ~ /[0-9]/) }' || fail "connect-bound: no connection time"
# restore: every phase with wall time, server CPU, what it waited on and a
# verdict with its evidence (pre-data, data and the total always; a phase
# shorter than 50 ms has no verdict, "unknown"; the total has one).  This
# host has PSI (/proc/pressure), so the cpu/io wait cells hold numbers; where
# it has none, they must say "-" (unknown), never 0.
num='[0-9.,]+'
if [ -r /proc/pressure/io ] && cat /proc/pressure/io >/dev/null 2>&1; then psi=$num; else psi='-'; fi
for ph in pre-data data total; do
	v='(cpu-bound|cpu-starved|io-bound|lock-or-other-wait|unknown)'
	[ "$ph" = total ] && v='(cpu-bound|cpu-starved|io-bound|lock-or-other-wait)'
	# a phase under 50 ms says so instead of the busy/pressure evidence
	ev="([^|]*cores busy $num of [0-9]+; cpu pressure [^|]*io pressure [^|]*blocked|under 50 ms: too short for tick-resolution CPU times)"
	it_expect restore "^\| $cfg \| $ph \| 1 \| $num \| $num \| $num \| $num \| $psi \| $psi \| $psi \| $num \| $num / $num \| $v \| $ev \|" \
		"phase $ph: no wall time, CPU, cpu/io wait, blocked, server writes, verdict or evidence"
done
# "under 50 ms" only on a phase that took under 50 ms (49.6 ms prints as
# 0.050), and only as "unknown"
it_rows restore "$cfg" | awk -F'|' '$15 ~ /under 50 ms/ {
	t = $5; gsub(/[ ,]/, "", t); v = $14; gsub(/ /, "", v)
	if (t + 0 > 0.05 || v != "unknown") { print "phase" $3 "took " t " s, verdict " v ", evidence:" $15; bad = 1 } }
	END { exit bad }' || fail "restore: a phase says 'under 50 ms' but is not one, or has a verdict"
# the evidence names the same cpu wait as its column (one reading, two renderings)
it_rows restore "$cfg" | awk -F'|' -v psi="$psi" '$3 ~ /total/ {
	c = $9; gsub(/ /, "", c); found = 1
	if (psi != "-" && index($15, "cpu pressure " c "%") == 0) { print "cpu wait " c " vs evidence:" $15; bad = 1 } }
	END { exit !found || bad }' || fail "restore total: the cpu wait column and the verdict's evidence disagree"
# the data phase wrote the rows through the server: pages dirtied and write(2) bytes
it_rows restore "$cfg" | awk -F'|' '$3 ~ / data / { split($13, w, "/"); gsub(/[ ,]/, "", w[1]); gsub(/[ ,]/, "", w[2])
	ok = w[1] + 0 > 0 && w[2] + 0 > 0 } END { exit !ok }' ||
	fail "restore data phase: the server wrote nothing: $(it_rows restore "$cfg" | grep ' data ')"
it_section Answer | grep -qE 'step restore, phase data \([0-9.]+ s, [0-9]+% of the restore\): (cpu-bound|cpu-starved|io-bound|lock-or-other-wait|waiting) \(' ||
	fail "the Answer has no restore verdict with its time and evidence"
it_section Answer | grep -qE 'step restore: the server wrote [0-9,.]+ MiB \(write\(2\) of its processes\); [0-9,.]+ MiB of writes reached the device' ||
	fail "the Answer does not say how much of the restore's writes reached the device"
it_leftovers "$RUN" || fail "the run left things behind"
echo "PASS: slc-restore.ini (small) ran its six steps in $TOOK s"
