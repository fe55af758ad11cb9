#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #25: `dutlab report` streams the trace (one pass in time order)
# and prints what the loading report printed, byte for byte.  The expected
# outputs (their SHA-256 in fixtures/report-stream/expected.sha256) were
# written by the loading report (dutlab at commit 68bd1b2, before the
# streaming one) from the same traces: trace-gen's with fixed seeds (same
# options, same bytes) and the 1.0 trace fixture; every --by, with and
# without a relation map, exit status and warnings, and the JSON document
# without its "created" and "host" members.
# Regenerate (only with a report that is known to be right):
#   REPORT_STREAM_WRITE=1 report-stream.sh DUTLAB TRACE_GEN
# usage: report-stream.sh DUTLAB TRACE_GEN   (DUT_SOURCE_ROOT: the source tree)
set -u
DUTLAB=$1
GEN=$2
SRC=${DUT_SOURCE_ROOT:-.}
FIX=$SRC/tests/tools/fixtures/report-stream
command -v python3 >/dev/null || { echo "SKIP: needs python3 (to drop the JSON's created and host members)"; exit 77; }
TMP=$(mktemp -d /tmp/report-stream.XXXXXX) || exit 99
trap 'rm -rf "$TMP"' EXIT
trap 'exit 99' INT TERM
fails=0 checked=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# NAME then trace-gen options
traces='g1 --records 20000 --seed 1 --markers 3
g2 --records 30000 --seed 2 --threads 16 --disorder 5 --ties --unknown-ids --markers 5 --dutfs-heavy
g3 --records 30000 --seed 3 --threads 3 --stragglers 40 --frame-recs 7 --round-recs 50 --markers 3
g4 --records 10000 --seed 4 --v1.0 --no-footer
g5 --records 20000 --seed 5 --cut 500001 --ties --disorder 30'

echo "$traces" | while read -r name opts; do
	# shellcheck disable=SC2086 # opts are words
	"$GEN" $opts "$TMP/$name.dtr" || { echo "FAIL: trace-gen $opts"; exit 1; }
done || exit 1
cp "$SRC/tests/lib/fixtures/trace/v1.0-mktrace.dtr" "$TMP/mk10.dtr"
# The same records as 2.1 traces of compact frames (CSPAN, CRECORDS): their
# reports must be the 1.1 traces' (g5's cut would fall elsewhere, g4 is 1.0);
# g1 also as 2.0 (--v2.0: CRECORDS without CSPAN, what dutfs wrote before 2.1).
for name in g1 g2 g3; do
	opts=$(echo "$traces" | awk -v n="$name" '$1 == n { $1 = ""; print }')
	# shellcheck disable=SC2086 # opts are words
	"$GEN" $opts --compact "$TMP/$name-c.dtr" || { echo "FAIL: trace-gen $opts --compact"; exit 1; }
	[ "$(stat -c %s "$TMP/$name-c.dtr")" -lt "$(($(stat -c %s "$TMP/$name.dtr") / 2))" ] ||
		fail "$name-c.dtr is not half the size of $name.dtr"
done
opts=$(echo "$traces" | awk '$1 == "g1" { $1 = ""; print }')
# shellcheck disable=SC2086 # opts are words
"$GEN" $opts --v2.0 "$TMP/g1-c20.dtr" || { echo "FAIL: trace-gen $opts --v2.0"; exit 1; }

# strip_json FILE [BYTES]: with BYTES (a compact trace's JSON), the 1.1 trace's
# trace_version_minor (1; 2.0's is 0, 2.1's 1) and valid_bytes (BYTES) replace
# the compact trace's: they are all that differs
strip_json() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("created",None); d.pop("host",None)
if len(sys.argv) > 2: d["target"].update(trace_version_minor=1, valid_bytes=int(sys.argv[2]))
print(json.dumps(d, indent=1, sort_keys=True))' "$@"
}

# check KEY: what dutlab printed ($TMP/out) against the expected output's hash
check() {
	checked=$((checked + 1))
	got=$(sha256sum <"$TMP/out" | cut -d' ' -f1)
	if [ -n "${REPORT_STREAM_WRITE:-}" ]; then
		echo "$got  $1" >>"$TMP/expected.new"
		return
	fi
	want=$(awk -v k="$1" '$2 == k { print $1 }' "$FIX/expected.sha256")
	if [ -z "$want" ]; then
		fail "$1: no expected output in $FIX/expected.sha256"
	elif [ "$got" != "$want" ]; then
		fail "$1: differs from the loading report's; it begins:"
		head -20 "$TMP/out"
	fi
}

cd "$TMP" || exit 99
cp "$FIX/relmap.json" relmap.json || exit 99
for name in g1 g2 g3 g4 g5 mk10 g1-c g2-c g3-c g1-c20; do
	key=${name%%-*}   # a compact trace is checked against its 1.1 trace's expected outputs
	ver=; [ "$key" != "$name" ] && ver=$(stat -c %s "$key.dtr")
	for rm in none relmap; do
		set --
		[ "$rm" = relmap ] && set -- --relmap relmap.json
		for by in class file relation phase process; do
			"$DUTLAB" report "$@" --by "$by" --top 0 "$name.dtr" >out 2>err
			echo "exit $?" >>out
			cat err >>out
			# the report's first line names the trace
			[ "$key" != "$name" ] && sed -i "1s/$name\.dtr/$key.dtr/" out
			check "$key.$rm.$by.txt"
		done
		"$DUTLAB" report "$@" --json r.json "$name.dtr" >/dev/null 2>&1 || fail "$name: report --json failed"
		[ "$key" != "$name" ] && sed -i "s/$name\.dtr/$key.dtr/g" r.json   # the trace's name, the command
		strip_json r.json $ver >out || fail "$name: the JSON document does not parse"
		check "$key.$rm.json"
	done
done
[ -n "${REPORT_STREAM_WRITE:-}" ] && { cp "$TMP/expected.new" "$FIX/expected.sha256"; echo "wrote $FIX/expected.sha256"; exit 0; }
[ "$checked" -ge 120 ] || fail "only $checked outputs checked"
[ "$fails" = 0 ] || { echo "$fails of $checked outputs differ"; exit 1; }
echo "PASS: $checked outputs of the streaming report equal the loading report's"
