#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped experiment tools/experiments/io-method.ini (#26), end to end in
# a small variant: PostgreSQL 18 (a build of dutlab pg build, cached in
# /var/lib/dutlab/pg/18-bs8k) with io_method = sync, worker and io_uring
# through dutfs, at pgbench scale 1 (3 s of select-only) and DSS SF 0.01.
# Checks: [postgres] version = 18 resolves to the cached build; the same
# file on 15 is refused before the run with the reason; every
# configuration ran with its io_method (the server's own SHOW in the result
# documents), and the report has TPS, latency and DSS query times for each
# and names each configuration's I/O method.
#
# Without the 18 build this test skips: `dutlab pg build --major 18` makes it
# once per machine (20-40 min on 2 cores; Debian's forky/sid source package).
. "$(dirname "$0")/it-lib.sh"
CACHE=/var/lib/dutlab/pg
unset DUT_PG_CACHE
[ -x "$CACHE/18-bs8k/bin/postgres" ] && [ -f "$CACHE/18-bs8k/dutlab-build.conf" ] ||
	skip "PostgreSQL 18 is not built in $CACHE/18-bs8k: \`dutlab pg build --major 18\` makes it (20-40 min on 2 cores, once per machine)"
# a build from before dutlab-pg-build installed the server's modules into it cannot initdb
[ "$("$CACHE/18-bs8k/bin/pg_config" --pkglibdir)" = "$CACHE/18-bs8k/lib/postgresql" ] ||
	skip "the PostgreSQL 18 build in $CACHE/18-bs8k has no modules of its own (made before they were installed into the build): \`dutlab pg build --major 18 --rebuild\` replaces it"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed"

it_small io-method -e 's/^scale = 10$/scale = 1/' -e 's/^scale = 0.1$/scale = 0.01/' \
	-e 's/^duration = .*/duration = 3s/' -e 's/^repeat = .*/repeat = 1/' -e 's/^reps = .*/reps = 1/' >"$WORK/io-method.ini"
grep -q '^set.io_method = sync, worker, io_uring$' "$WORK/io-method.ini" || fail "the shipped file has no io_method dimension"

# on 15 io_method is refused before anything runs, with the reason and the line
sed 's/^version = 18$/version = 15/' "$WORK/io-method.ini" >"$WORK/io15.ini"
"$DUTLAB" run "$WORK/io15.ini" --dry-run --out "$WORK/dry15" >"$WORK/io15.out" 2>&1 && fail "io_method on 15 was not refused"
grep -q "io_method needs PostgreSQL 18; this configuration uses 15 ($PGBIN)" "$WORK/io15.out" ||
	fail "the refusal on 15 does not give the reason: $(cat "$WORK/io15.out")"
echo "ok: io_method on PostgreSQL 15 is refused: $(grep -m1 'io_method needs' "$WORK/io15.out")"

# version = 18 is the cached build
out=$("$DUTLAB" run "$WORK/io-method.ini" --dry-run --out "$WORK/dry" 2>&1) || fail "dry-run refused: $out"
grep -qE "PostgreSQL 18 \(postgres \(PostgreSQL\) 18\.[0-9]+.*\) from $CACHE/18-bs8k/bin" <<<"$out" ||
	fail "version = 18 did not resolve to the cached build: $out"
it_run_small "$WORK/io-method.ini"
it_check_report load read-only tpch
m=$RUN/manifest.json
[ "$(jq '.configs | length' "$m")" = 3 ] || fail "$(jq '.configs | length' "$m") configurations, expected 3"
c=0
for meth in sync worker io_uring; do
	name=io_method=$meth
	[ "$(jq -r ".configs[$c].name" "$m")" = "$name" ] || fail "configuration $c is $(jq -r ".configs[$c].name" "$m")"
	[ "$(jq -r ".configs[$c].postgres.major" "$m")" = 18 ] || fail "$name: major $(jq -r ".configs[$c].postgres.major" "$m")"
	[ "$(jq -r ".configs[$c].postgres.bindir" "$m")" = "$CACHE/18-bs8k/bin" ] || fail "$name: bindir"
	dir=$RUN/$(jq -r ".configs[$c].reps[0].dir" "$m")
	# the server's own word: pgbench results record the settings it ran with
	f=$(ls "$dir"/read-only*.json | head -1)
	[ "$(jq -r '.target.settings.io_method.setting // empty' "$f")" = "$meth" ] ||
		fail "$name: $f says io_method $(jq -c '.target.settings.io_method' "$f")"
	row=$(it_rows read-only "$name" | head -1)
	awk -F'|' -v r="$row" 'BEGIN { split(r, c, "|"); if (c[3] + 0 != 1 || c[4] !~ /[0-9]/ || c[7] !~ /[0-9]/) exit 1 }' ||
		fail "step read-only, $name: TPS or latency missing: $row"
	it_rows tpch "$name" | grep -qE "^\| $name \| queries \| 1 \| [0-9.]+ \|" || fail "step tpch: no query time for $name"
	c=$((c + 1))
done
it_leftovers "$RUN" || fail "the run left things behind"
echo "PASS: io-method.ini (small) ran PostgreSQL 18 with io_method sync, worker and io_uring in $TOOK s"
