#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped experiment tools/experiments/fs-oltp.ini, end to end in a
# small variant: the same four filesystems and three steps (load,
# select-only, tpcb-like), on the shipped image size in this test's directory, at
# scale 1 with 3 s runs repeated twice instead of three times (the time
# a CI run has); then the report a DBA reads: TPS with its spread, the
# latency percentiles and the connection time of both pgbench steps in
# every configuration, the load times, and the Answer first, in numbers, with
# the memory budget and the data-file write bursts against TPS dips.
. "$(dirname "$0")/it-lib.sh"
for t in mkfs.ext4 mkfs.xfs mkfs.btrfs; do
	command -v $t >/dev/null || skip "$t is not installed"
done
it_small fs-oltp -e 's/^scale = .*/scale = 1/' \
	-e 's/^duration = .*/duration = 3s/' -e 's/^repeat = .*/repeat = 2/' >"$WORK/fs-oltp.ini"
it_run_small "$WORK/fs-oltp.ini"
it_check_report load read-only read-write
for cfg in ext4-ordered ext4-writeback xfs btrfs; do
	it_rows load "$cfg" | grep -qE '\| [0-9.]+ \|' || fail "step load: no load time for $cfg"
	for s in read-only read-write; do
		# configuration | runs | TPS | TPS min-max | ratio | p50 | p99 | p99 min-max | connection time
		row=$(it_rows "$s" "$cfg" | head -1)
		[ -n "$row" ] || fail "step $s: no row for $cfg: $(it_step "$s")"
		awk -F'|' -v r="$row" 'BEGIN { n = split(r, c, "|");
			if (c[3] + 0 != 2 || c[4] !~ /[0-9]/ || c[5] !~ /[0-9]+.*-/ || c[7] !~ /[0-9]/ || c[8] !~ /[0-9]/ ||
			    c[10] !~ /[0-9]/) exit 1 }' || fail "step $s, $cfg: a figure is missing: $row"
	done
done
it_step read-only | grep -q 'connection time' || fail "the OLTP table has no connection time column"
it_section Answer | grep -q 'btrfs' || fail "the Answer does not name btrfs"
# the shipped file runs the server in a 40 MiB memory budget, so its full size (scale 10,
# ~170 MiB) reads the device, not the host's page cache; the Answer says the budget
[ "$(jq -c '[.configs[].memory_budget_bytes] | unique' "$RUN/manifest.json")" = "[41943040]" ] ||
	fail "the configurations did not run in a 40 MiB budget: $(jq -c '[.configs[].memory_budget_bytes]' "$RUN/manifest.json")"
for cfg in ext4-ordered ext4-writeback xfs btrfs; do
	it_section Answer | grep -q "^Memory, $cfg: the server ran in a 40 MiB budget" ||
		fail "the Answer does not give $cfg's memory budget: $(it_section Answer | grep "^Memory, $cfg")"
done
# data-file write bursts (the trace) against TPS dips (the per-second series), per configuration
# and step: a sentence in the why list and a row of the table, with its counts
for cfg in ext4-ordered ext4-writeback xfs btrfs; do
	for s in read-only read-write; do
		it_section Answer | grep -qE "^- $cfg, step $s, data-file writes against TPS dips: (no TPS dip \(no second below 70% of the median [0-9,]+ tx/s in the [0-9]+ whole seconds of 2 runs\)|[0-9]+ TPS dips? \(seconds below 70% of the median [0-9,]+ tx/s\) in [0-9]+ whole seconds of 2 runs: [0-9]+ at a data-file write burst)" ||
			fail "$cfg, step $s: no sentence on write bursts against TPS dips: $(it_section Answer | grep -- "- $cfg, step $s, data")"
		it_section Answer | grep -qE "^\| $cfg \| $s \| 2 \| [0-9]+ \| [0-9,]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| .* \| ([0-9,.]+|none) \|$" ||
			fail "$cfg, step $s: no row in the table of write bursts against TPS dips"
	done
done
# the data-file writes of a read-write step reached the trace (device view: the writeback)
it_section Answer | grep -qE "^- [a-z0-9-]+, step read-write, data-file writes against TPS dips: .*[0-9.]+ MiB written to tables and indexes \(view device\)" ||
	fail "no read-write step has data-file writes in the trace: $(it_section Answer | grep -- 'step read-write, data-file')"
it_leftovers "$RUN" || fail "the run left things behind"
echo "PASS: fs-oltp.ini (small) ran 4 configurations in $TOOK s; the report has TPS, latency and connection time"
