#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped experiment tools/experiments/fs-oltp-blocksize.ini (#26), end
# to end in a small variant: the three block sizes (8 kB Debian's 15, 16 and
# 32 kB builds of dutlab pg build) on one filesystem (ext4 ordered; the
# shipped file also has xfs), scale 1, 3 s runs once; then what the report
# must say: every configuration's block size and bindir, the server's own
# SHOW block_size in each step's result, TPS and latency of both pgbench
# steps per block size, the 40 MiB budget.  The builds are made once per
# machine (tools_run_blocksize makes the 16 kB one); without them this test
# skips, naming the commands.
. "$(dirname "$0")/it-lib.sh"
CACHE=/var/lib/dutlab/pg
unset DUT_PG_CACHE
for kb in 16 32; do
	[ -x "$CACHE/15-bs${kb}k/bin/postgres" ] && [ -f "$CACHE/15-bs${kb}k/dutlab-build.conf" ] ||
		skip "PostgreSQL 15 with $kb kB blocks is not built in $CACHE/15-bs${kb}k: \`dutlab pg build --major 15 --block-size ${kb}kB\` makes it (about 20 min on 2 cores, once per machine)"
done
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed"
it_small fs-oltp-blocksize -e 's/^scale = .*/scale = 1/' -e 's/^filesystem = .*/filesystem = ext4-ordered/' \
	-e 's/^duration = .*/duration = 3s/' -e 's/^repeat = .*/repeat = 1/' >"$WORK/fs-oltp-blocksize.ini"
grep -q '^block_size = 8kB, 16kB, 32kB$' "$WORK/fs-oltp-blocksize.ini" || fail "the shipped file has no block_size dimension"
it_run_small "$WORK/fs-oltp-blocksize.ini"
it_check_report load read-only read-write
m=$RUN/manifest.json
[ "$(jq '.configs | length' "$m")" = 3 ] || fail "$(jq '.configs | length' "$m") configurations, expected 3"
for c in 0 1 2; do
	kb=$((8 << c)) bs=$((8192 << c))
	name=$(jq -r ".configs[$c].name" "$m")
	dir=$RUN/$(jq -r ".configs[$c].reps[0].dir" "$m")
	[ "$name" = "bs${kb}k+ext4-ordered" ] || fail "configuration $c is $name, expected bs${kb}k+ext4-ordered"
	ere=$(printf '%s' "$name" | sed 's/[+.]/\\&/g')   # the name in an ERE
	[ "$(jq -r ".configs[$c].postgres.block_size_kb" "$m")" = "$kb" ] || fail "$name: the manifest's block size"
	bindir=$(jq -r ".configs[$c].postgres.bindir" "$m")
	if [ "$c" = 0 ]; then want_bin=$PGBIN; else want_bin=$CACHE/15-bs${kb}k/bin; fi
	[ "$bindir" = "$want_bin" ] || fail "$name: bindir $bindir, expected $want_bin"
	# what the server itself said, in every step's result document
	for s in load read-only read-write; do
		f=$(ls "$dir"/"$s"*.json 2>/dev/null | head -1)
		[ -n "$f" ] || fail "$name: no result document of step $s in $dir"
		[ "$(jq -r .target.block_size "$f")" = "$bs" ] ||
			fail "$name: $f says block_size $(jq -r .target.block_size "$f"), expected $bs"
	done
	# the configuration line of the report names the block size (8 kB: Debian's, plain)
	if [ "$c" = 0 ]; then
		grep -qE "^- 0 $ere: .*, from $PGBIN$" "$RUN/report.md" || fail "report.md: $name's line is not plain 8 kB"
	else
		grep -qE "^- $c $ere: .*, from $want_bin, $kb kB blocks$" "$RUN/report.md" ||
			fail "report.md does not name $name's $kb kB blocks: $(grep -E "^- $c " "$RUN/report.md")"
	fi
	for s in read-only read-write; do
		row=$(it_rows "$s" "$ere" | head -1)
		[ -n "$row" ] || fail "step $s: no row for $name: $(it_step "$s")"
		# configuration | runs | TPS | TPS min-max | ratio | p50 | p99 | ...
		awk -F'|' -v r="$row" 'BEGIN { split(r, c, "|"); if (c[3] + 0 != 1 || c[4] !~ /[0-9]/ || c[7] !~ /[0-9]/) exit 1 }' ||
			fail "step $s, $name: TPS or latency missing: $row"
	done
	it_section Answer | grep -q "^Memory, $name: the server ran in a 40 MiB budget" ||
		fail "the Answer does not give $name's memory budget: $(it_section Answer | grep "^Memory, $name")"
done
it_leftovers "$RUN" || fail "the run left things behind"
echo "PASS: fs-oltp-blocksize.ini (small) ran 8, 16 and 32 kB blocks in $TOOK s; the report names each block size"
