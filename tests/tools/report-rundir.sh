#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `dutlab report RUNDIR` end to end on copies of the fixture run directories:
# report.md and report.html written, every chart a real PNG (signature, > 1 KB)
# drawn by gnuplot and linked relatively; without gnuplot (DUTLAB_GNUPLOT names
# a missing program) the report is still written and says which package to install.
# rundir-traps springs every trap detector (with a trace written by mktrace); rundir-oltp
# springs none; every report opens with its answer and never quotes a share of 0 bytes.
# usage: report-rundir.sh DUTLAB MKTRACE   (DUT_SOURCE_ROOT: the source tree)
set -u
DUTLAB=$1
MKTRACE=$2
FIX=${DUT_SOURCE_ROOT:-.}/tests/tools/fixtures
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is not installed (apt-get install gnuplot-nox)"; exit 77; }
TMP=$(mktemp -d /tmp/report-rundir.XXXXXX) || exit 99
trap 'rm -rf "$TMP"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_line() {
	grep -qF -- "$3" "$2" || { fail "$1: no line with \"$3\" in $2"; }
}

# check_pngs NAME DIR COUNT: COUNT charts, each a PNG larger than 1 KB, each linked from both reports
check_pngs() {
	n=0
	for f in "$2"/charts/*.png; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		sig=$(od -An -tx1 -N8 "$f" | tr -d ' \n')
		[ "$sig" = "89504e470d0a1a0a" ] || fail "$1: $f is not a PNG (signature $sig)"
		[ "$(stat -c %s "$f")" -gt 1024 ] || fail "$1: $f is not larger than 1 KB"
		b=$(basename "$f")
		grep -qF "](charts/$b)" "$2/report.md" || fail "$1: report.md does not link charts/$b"
		grep -qF "<img src=\"charts/$b\"" "$2/report.html" || fail "$1: report.html does not link charts/$b"
	done
	[ "$n" = "$3" ] || fail "$1: $n charts, expected $3"
}

# rundir-dss holds symlinks into the compare fixtures: copy what they point to
cp -rL "$FIX/rundir-oltp" "$FIX/rundir-probe" "$FIX/rundir-dss" "$FIX/rundir-traps" "$TMP/" || exit 99
"$MKTRACE" "$TMP/rundir-traps/c00-vm-dir/rep1/trace.dtr" || exit 99

for d in oltp probe dss traps; do
	"$DUTLAB" report "$TMP/rundir-$d" >"$TMP/$d.out" 2>"$TMP/$d.err" || { fail "report rundir-$d: exit $?"; cat "$TMP/$d.err"; }
	[ -s "$TMP/rundir-$d/report.md" ] && [ -s "$TMP/rundir-$d/report.html" ] || fail "rundir-$d: no report files"
	grep -q "<script" "$TMP/rundir-$d/report.html" && fail "rundir-$d: report.html has JavaScript"
done
# oltp: TPS+latency per config (2), I/O mix per config (2)
check_pngs oltp "$TMP/rundir-oltp" 4
expect_line oltp "$TMP/oltp.out" "report.html: 5 findings, 4 of 4 charts drawn"
expect_line oltp "$TMP/rundir-oltp/report.md" "- sync-on: 67% of random reads hit heap relations (64 of 96, 2 traced repetitions)."
expect_line oltp "$TMP/rundir-oltp/report.md" "| sync-off | 2 | 305.8 | 180.0-431.5 | 1.29x |"
# probe: slc knee, fill; bench has findings but no chart
check_pngs probe "$TMP/rundir-probe" 2
expect_line probe "$TMP/rundir-probe/report.md" "3,200 MB/s exceeds the interface ceiling of 600 MB/s"
expect_line probe "$TMP/rundir-probe/report.md" "| btrfs | skipped | 0 of 0 complete |"
# the Answer's why of a fill step: flat, falling, per queue depth
expect_line probe "$TMP/rundir-probe/report.md" "- file-ext4, step fill, QD 1: random-write IOPS stayed within 20% of the emptiest level (742 at 30%, 710 at 60%, 808 at 90%): no overwrite penalty as the target filled."
expect_line probe "$TMP/rundir-probe/report.md" "- file-ext4, step fill, QD 8: random-write IOPS fell as the target filled (6,261 at 30%, 6,581 at 60%, 3,783 at 90%): 0.60x at 90% of what it did at 30%"
# dss: phases and queries
check_pngs dss "$TMP/rundir-dss" 2
expect_line dss "$TMP/rundir-dss/report.md" "changed the plans of Q6, Q14 and Q15 (against default)"
# the Answer beyond m-time: phases, the queries that took the time, the changed plans by name
expect_line dss "$TMP/rundir-dss/report.md" "- no-shipdate-idx against default, step dss: 1.84x slower on the queries (m-time 0.329 s against 0.179 s, the 2 queries whose plan is the same everywhere); plans: changed for Q6, Q14, Q15 (left out of m-time); the difference is mostly in Q1 (+0.149 s), Q22 (+0.001 s)."
expect_line dss "$TMP/rundir-dss/report.md" "- default, step dss: phases load 1.56 s, keys 1.10 s, analyze 1.92 s, queries 2.62 s (one run); query time mostly Q1 26%, Q18 13%, Q9 9% of the 0.67 s of its 22 queries; reads during the queries: not traced (no trace)."

# every report: the answer first, with numbers; no share of nothing
for d in oltp probe dss traps; do
	md="$TMP/rundir-$d/report.md"
	a=$(grep -n '^## Answer$' "$md" | cut -d: -f1)
	f=$(grep -n '^## Findings$' "$md" | cut -d: -f1)
	[ -n "$a" ] && [ -n "$f" ] && [ "$a" -lt "$f" ] || fail "rundir-$d: no answer section before the findings"
	grep -q '^| .* | [0-9][0-9,.]* | .* | [0-9]* | .* |$' "$md" || fail "rundir-$d: the answer has no numbers"
	grep -q '0\.0 of 0\.0' "$md" && fail "rundir-$d: a share of 0 bytes: $(grep '0\.0 of 0\.0' "$md")"
	grep -q '<h2>Answer</h2>' "$TMP/rundir-$d/report.html" || fail "rundir-$d: report.html has no answer"
done
expect_line oltp "$TMP/rundir-oltp/report.md" "| sync-off | oltp | TPS (tx/s) | 305.8 | 180.0-431.5 | 2 | 1.29x |"
expect_line oltp "$TMP/rundir-oltp/report.md" "the difference is not shown: it does not exceed the run-to-run spread"
grep -q "What this run did not measure" "$TMP/rundir-oltp/report.md" && fail "oltp: a trap finding on a run without traps"
# traps: each detector
t="$TMP/rundir-traps/report.md"
# the answer says how much memory the server had against the data set
expect_line traps "$t" "Memory, vm-dir: no memory budget; the 15 MiB database could sit in the host's page cache"
# the target as the experiment named it, not the run's staging mount identify was given
expect_line traps "$t" "- Device under test, usb: /dev/sdb1 (target usb; identify looked at it through the run's mount: directory, through /dev/sdb1 (partition 1 of sdb)), device sdb Extreme SSD, link USB 3.0"
expect_line traps "$t" "| usb | /dev/sdb1 (target usb) | directory |"
awk '/^## Answer$/ { on = 1; next } on && /^## / { exit } on' "$t" | grep -q '/run/dutlab-' &&
	fail "traps: the Answer names the staging path: $(grep -m1 '/run/dutlab-' "$t")"
expect_line traps "$t" "- vm-dir: no flash behind this: the target /var/tmp/dutlab/default (directory) sits on a link dutprobe describes as \"paravirtual (virtio/xen): no physical link\""
expect_line traps "$t" "- vm-dir, step run: this measured the page cache, not the device: 0 device reads for 5,000 transactions"
expect_line traps "$t" "- vm-dir, step run: connection set-up dominated: it took 50% of the step's time; TPS including connections 300.0 vs excluding them 600.0 tx/s"
expect_line traps "$t" "- vm-dir, step bench: the drive was empty or not preconditioned for this write test"
expect_line traps "$t" "- vm-dir, step dss: the plan of Q2 changed between repetitions"
expect_line traps "$t" "- usb, step slc: the sequential write level of 3,389 MB/s exceeds the interface ceiling of 450 MB/s"
expect_line traps "$t" "- vm-dir, step run (600.0 tx/s): limited by connection set-up (50% of the step's time); memory served its reads"
expect_line traps "$t" "100% of the bytes written went to WAL (96.0 of 96.0 KiB)"

# the data and scripts stay next to the images, so a user can redraw them
[ -s "$TMP/rundir-probe/charts/slc-slc-c00-file-ext4-1.gp" ] && [ -s "$TMP/rundir-probe/charts/slc-slc-c00-file-ext4-1.dat" ] ||
	fail "probe: slc script or data missing"

# no gnuplot: the report is still written, charts listed as not rendered with the package,
# and the images of the earlier report are gone (they would pass for this one's)
rm -f "$TMP/rundir-oltp/report.md"
DUTLAB_GNUPLOT=/nonexistent/gnuplot "$DUTLAB" report "$TMP/rundir-oltp" >"$TMP/nog.out" 2>"$TMP/nog.err" ||
	fail "no gnuplot: exit $?"
expect_line "no gnuplot" "$TMP/nog.out" "0 of 4 charts drawn"
expect_line "no gnuplot" "$TMP/nog.err" "apt-get install gnuplot-nox"
expect_line "no gnuplot" "$TMP/rundir-oltp/report.md" "Chart not rendered: TPS and mean latency per second: sync-on, step oltp (/nonexistent/gnuplot is not installed (apt-get install gnuplot-nox)"
ls "$TMP/rundir-oltp/charts/"*.png >/dev/null 2>&1 && fail "no gnuplot: PNG files appeared"

# a gnuplot that fails: its exit status is reported per chart
printf '#!/bin/sh\necho "bad plot" >&2\nexit 3\n' >"$TMP/badplot"
chmod +x "$TMP/badplot"
DUTLAB_GNUPLOT="$TMP/badplot" "$DUTLAB" report "$TMP/rundir-oltp" >"$TMP/bad.out" 2>&1 || fail "failing gnuplot: exit $?"
expect_line "failing gnuplot" "$TMP/rundir-oltp/report.md" "gnuplot exited with status 3; see charts/oltp-oltp-c00-sync-on.log"
grep -q "bad plot" "$TMP/rundir-oltp/charts/oltp-oltp-c00-sync-on.log" || fail "failing gnuplot: log not kept"

# a broken manifest: exit 1, the file and the member named
printf '{"schema":"dutlab-run","schema_version":1,"experiment":{"name":"x"},"status":"complete","configs":[{"index":"0"}]}' \
	>"$TMP/rundir-dss/manifest.json"
"$DUTLAB" report "$TMP/rundir-dss" >/dev/null 2>"$TMP/broken.err" && fail "broken manifest: exit 0"
expect_line "broken manifest" "$TMP/broken.err" "$TMP/rundir-dss/manifest.json: configs[0].index: expected an integer, found a string"

# a trace still works as before
"$DUTLAB" report "$TMP/rundir-oltp/c00-sync-on/rep1/trace.dtr" >"$TMP/trace.out" 2>&1 || fail "report TRACE: exit $?"
expect_line "report TRACE" "$TMP/trace.out" "By class (whole trace)"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "report-rundir: all checks passed"
