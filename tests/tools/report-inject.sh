#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Regression (issue #27): strings of a run directory never become gnuplot
# commands.  An unprivileged user crafts a run directory whose configuration
# name, fill metric key and slc knee confidence carry gnuplot code (a quote
# that ends the string, then system(); backquotes; newlines, which end a
# command; a knee at "inf", which a number in a command must not become); root runs `dutlab report` on it with the real gnuplot.  No marker
# file may appear, every chart must still be drawn, and the bad metric name is
# refused with a warning.
# usage: report-inject.sh DUTLAB   (DUT_SOURCE_ROOT: the source tree)
set -u
DUTLAB=$1
FIX=${DUT_SOURCE_ROOT:-.}/tests/tools/fixtures
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is not installed (apt-get install gnuplot-nox)"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq is not installed (apt-get install jq)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the attack is a user's run directory reported by root)"; exit 77; }
TMP=$(mktemp -d /tmp/report-inject.XXXXXX) || exit 99
MARK=/tmp/PWNED-$(basename "$TMP")
trap 'rm -rf "$TMP" "$MARK".*' EXIT
trap 'exit 99' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

chmod 0755 "$TMP"
R=$TMP/rundir-probe
cp -r "$FIX/rundir-probe" "$R" && chown -R nobody:nogroup "$R" || exit 99

# the payloads: a closing single quote then system(), backquotes, a newline then a command
SQ="x'; system(\"touch $MARK.sq\"); '"
BQ="\`touch $MARK.bq\`"
NL="a
system(\"touch $MARK.nl\")
print '"
DQ="\"; system(\"touch $MARK.dq\"); \""
BS='x\'
edit() {   # edit FILE JQ-PROGRAM: the user rewrites a file of their run directory
	as_user sh -c 'jq --arg sq "$1" --arg bq "$2" --arg nl "$3" --arg dq "$4" --arg bs "$5" "$6" "$7" >"$7.new" &&
		mv "$7.new" "$7"' sh "$SQ" "$BQ" "$NL" "$DQ" "$BS" "$2" "$1" || exit 99
}
edit "$R/manifest.json" '.configs[0].name = ("cfg " + $sq + " " + $bq + " " + $nl + " " + $dq + " " + $bs)'
# a fill metric the chart plots (iops_qd...): in every level phase
edit "$R/c00-file-ext4/rep1/fill.json" \
	'.phases |= map(.metrics += { ("iops_qd4" + $sq): {value: 1, unit: "IO/s"},
				      ("iops_qd5" + $bq): {value: 1, unit: "IO/s"},
				      ("iops_qd6" + $nl): {value: 1, unit: "IO/s"} })'
edit "$R/c00-file-ext4/rep1/slc.json" '.phases[0].extra.knees[0].confidence = ($sq + $bq + $nl) |
	.phases[0].extra.knees += [{bytes_before: "inf", bw_before: "nan", bw_after: 1, confidence: "low"}]'

"$DUTLAB" report "$R" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 0 ] || { fail "report: exit $rc"; cat "$TMP/err"; }
for m in sq bq nl dq; do
	[ -e "$MARK.$m" ] && fail "the $m payload ran a command as root ($MARK.$m exists)"
done
grep -qF "2 of 2 charts drawn" "$TMP/out" || { fail "not every chart was drawn"; cat "$TMP/out" "$TMP/err"; }
for f in "$R"/charts/*.png; do
	[ "$(od -An -tx1 -N8 "$f" | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$f is not a PNG"
done
# the crafted metric names are refused with a warning naming the rule, the good ones still plotted
grep -q "metric name .*iops_qd4.* not charted" "$TMP/err" || { fail "no warning about the metric name"; cat "$TMP/err"; }
grep -qF "title 'QD 1'" "$R/charts/fill-fill-c00-file-ext4.gp" || fail "fill chart lost the good metrics"
grep -q "iops_qd[456]\|QD [456]" "$R/charts/fill-fill-c00-file-ext4.gp" "$R/charts/fill-fill-c00-file-ext4.dat" &&
	fail "a crafted metric reached the fill chart"
# every script line is a command dutlab wrote: none starts with a payload's command
grep -n '^[[:space:]]*\(system\|print\|!\)' "$R"/charts/*.gp && fail "a payload line is a gnuplot command"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "report-inject: all checks passed"
