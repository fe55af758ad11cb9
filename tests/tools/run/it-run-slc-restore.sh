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
# restore: every phase with wall time, server CPU and a verdict
# (pre-data, data and the total always; a phase shorter than 50 ms has no
# verdict, "unknown"; the total has one)
for ph in pre-data data total; do
	v='(cpu-bound|waiting|unknown)'
	[ "$ph" = total ] && v='(cpu-bound|waiting)'
	it_expect restore "^\| $cfg \| $ph \| 1 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| $v \|" "phase $ph: no wall time, CPU or verdict"
done
it_section Answer | grep -qE 'restore.*(cpu-bound|waiting)' || fail "the Answer has no restore verdict"
it_leftovers "$RUN" || fail "the run left things behind"
echo "PASS: slc-restore.ini (small) ran its six steps in $TOOK s"
