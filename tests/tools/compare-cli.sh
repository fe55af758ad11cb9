#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the real `dutlab compare` on the fixtures and checks key lines of its
# output, its exit codes and its error messages.
# usage: compare-cli.sh DUTLAB   (DUT_SOURCE_ROOT: the source tree)
set -u
DUTLAB=$1
FIX=${DUT_SOURCE_ROOT:-.}/tests/tools/fixtures/compare
TMP=$(mktemp -d /tmp/compare-cli.XXXXXX) || exit 99
trap 'rm -rf "$TMP"' EXIT INT TERM
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_line NAME FILE FIXED-STRING
expect_line() {
	grep -qF -- "$3" "$2" || { fail "$1: no line with \"$3\" in:"; sed 's/^/    /' "$2"; }
}

# run NAME EXPECTED-EXIT ARGS...: stdout in $TMP/out, stderr in $TMP/err
run() {
	name=$1 want=$2
	shift 2
	"$DUTLAB" compare "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" = "$want" ] || { fail "$name: exit $rc, expected $want"; cat "$TMP/err"; }
}

cd "$FIX" || exit 99

run "real DSS" 0 dss-a-default.json dss-c-no-shipdate-idx.json --json "$TMP/cmp.json"
expect_line "real DSS" "$TMP/out" "dutlab compare: pgload dss (TPC-H-derived, not TPC-H results), SF 0.01; 2 results, baseline A"
expect_line "real DSS" "$TMP/out" "m-time over 19 of 22 queries (x above = out of m-time): Q1, Q2, Q3, Q4, Q5, Q7, Q8, Q9, Q10, Q11, Q12, Q13, Q16, Q17, Q18, Q19, Q20, Q21, Q22"
expect_line "real DSS" "$TMP/out" "Plans changed for Q6, Q14, Q15 in config B, so those are out of m-time; 19 of 22 queries are compared."
# Q6's plan changed: marked, and out of m-time
grep -E '^  x Q6 .* \* +[0-9.]+x$' "$TMP/out" >/dev/null || fail "real DSS: Q6 not marked"
grep -E '^  m-time \(s\) +0\.6500 +1\.3884 +2\.14x$' "$TMP/out" >/dev/null || fail "real DSS: m-time line"
[ -s "$TMP/cmp.json" ] && grep -q '"m_time_s"' "$TMP/cmp.json" || fail "real DSS: --json document"

run "none qualify" 0 h-base.json h-none.json
expect_line "none qualify" "$TMP/out" "m-time and m-score: undefined (no query qualifies; not 0)"
grep -E '^  m-time \(s\) +- +- *$' "$TMP/out" >/dev/null || fail "none qualify: m-time not shown as undefined"
# the plain totals stay defined: 1 + 2 + 4 s in both
grep -E '^  total, all queries \(s\) +7\.0000 +7\.0000 +1\.00x$' "$TMP/out" >/dev/null || fail "none qualify: plain total line"

run "json to stdout" 0 h-base.json h-diff.json --json -
grep -q '"schema": "dutlab-result"' "$TMP/out" || fail "json to stdout: not a result document"
grep -q 'm-time over' "$TMP/out" && fail "json to stdout: the table went to stdout too"

run "generic" 0 oltp-a.json oltp-b.json
grep -E '^  run / tps \(tx/s\) +1000 +1250 +1\.25x$' "$TMP/out" >/dev/null || fail "generic: tps line"

run "baseline" 0 --baseline 2 h-base.json h-diff.json
expect_line "baseline" "$TMP/out" "baseline B"

run "one result" 2 h-base.json
expect_line "one result" "$TMP/err" "need at least 2 result documents to compare, got 1"
run "bad baseline" 2 --baseline 0 h-base.json h-diff.json
expect_line "bad baseline" "$TMP/err" "--baseline \"0\": expected the number of a result"
run "other SF" 1 h-base.json h-sf.json
expect_line "other SF" "$TMP/err" "scale factors differ: A (h-base.json) has SF 0.01, B (h-sf.json) has SF 0.1"
run "other SF forced" 0 --force h-base.json h-sf.json
expect_line "other SF forced" "$TMP/out" "warning: scale factors differ"
run "mixed" 1 h-base.json oltp-a.json
expect_line "mixed" "$TMP/err" "cannot compare a pgload dss result (A: h-base.json) with a pgload oltp result (B: oltp-a.json)"
run "invalid" 1 h-base.json bad-json.json
expect_line "invalid" "$TMP/err" "bad-json.json: line 3"
run "directory" 1 h-base.json .
expect_line "directory" "$TMP/err" ". is a directory without manifest.json: not a run directory of dutlab run"

# Run directories (tests/tools/fixtures/rundir-*): one column per configuration, the
# median over its repetitions.  rundir-oltp TPS: sync-on 283.718 and 189.965 (median
# 236.842, spread (283.718-189.965)/2/236.842 = 20%), sync-off 431.515 and 180.011
# (median 305.763, 41%); ratio 305.763/236.842 = 1.29.
run "rundir" 0 ../rundir-oltp
expect_line "rundir" "$TMP/out" "== step oltp =="
expect_line "rundir" "$TMP/out" "  A  ../rundir-oltp: sync-on (2 documents of step oltp)"
grep -E '^  run / tps \(tx/s\) +236\.842 ±20% +305\.763 ±41% +1\.29x$' "$TMP/out" >/dev/null ||
	fail "rundir: tps line"
run "rundir dss" 0 --step dss ../rundir-dss
expect_line "rundir dss" "$TMP/out" "3 results, baseline A"
expect_line "rundir dss" "$TMP/out" "and for Q6, Q14, Q15 in config C, so those are out of m-time; 2 of 22 queries are compared."
run "rundir and a document" 0 ../rundir-oltp oltp-a.json
expect_line "rundir and a document" "$TMP/out" "  C  oltp-a.json"
run "rundir json without step" 2 ../rundir-oltp --json "$TMP/x.json"
expect_line "rundir json without step" "$TMP/err" "--json writes one comparison: choose the step with --step"
run "rundir json with step" 0 ../rundir-oltp --step oltp --json "$TMP/x.json"
grep -q '"schema": "dutlab-result"' "$TMP/x.json" || fail "rundir json with step: no result document"
run "rundir unknown step" 1 ../rundir-oltp --step nosuch
expect_line "rundir unknown step" "$TMP/err" "no run directory has a step \"nosuch\""
run "rundir baseline" 0 ../rundir-oltp --step oltp --baseline 2
expect_line "rundir baseline" "$TMP/out" "baseline B"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "compare-cli: all checks passed"
