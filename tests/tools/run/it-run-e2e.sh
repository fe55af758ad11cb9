#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dutlab run end to end: two filesystems on an image file x a 10 s OLTP run
# at scale 1 give a complete run directory (manifest status complete, one
# result document per step, a trace, a relation map, the server log), a
# report with charts that are non-empty PNG files, a compare table, the
# PostgreSQL it asked for (version = 15) in the manifest and the report, and
# nothing stays mounted, attached or running.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/it-lib.sh"

fs2=xfs
command -v mkfs.xfs >/dev/null || fs2=ext4-writeback
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed (e2fsprogs)"

cat >"$WORK/e2e.ini" <<INI
[experiment]
name = e2e
[target disk]
type = image
path = disk.img
size = 1536M
[matrix]
filesystem = ext4-ordered, $fs2
[postgres]
version = 15
set = shared_buffers=16MB
[step load]
type = oltp-init
scale = 1
[step rw]
type = oltp-run
clients = 2
duration = 10s
INI

run=$WORK/run
"$DUTLAB" run "$WORK/e2e.ini" --out "$run" >"$WORK/out.txt" 2>&1 &
RUN_PID=$!
RUN_DUTLAB_PID=$RUN_PID
wait "$RUN_PID"
rc=$?
RUN_PID=
cat "$WORK/out.txt"
[ "$rc" -eq 0 ] || fail "dutlab run exited $rc"

m=$run/manifest.json
[ -s "$m" ] || fail "no manifest.json"
[ "$(jq -r .status "$m")" = complete ] || fail "manifest status $(jq -r .status "$m")"
[ "$(jq -r .schema "$m")" = dutlab-run ] || fail "schema"
[ -n "$(jq -r '.finished_at // empty' "$m")" ] || fail "no finished_at"
[ "$(jq '.configs | length' "$m")" -eq 2 ] || fail "expected 2 configurations"
for c in 0 1; do
	dir=$(jq -r ".configs[$c].reps[0].dir" "$m")
	name=$(jq -r ".configs[$c].name" "$m")
	[ "$(jq -r ".configs[$c].status" "$m")" = complete ] || fail "config $name: $(jq -r ".configs[$c].status" "$m")"
	for s in load rw; do
		[ -s "$run/$dir/$s.json" ] || fail "$dir/$s.json missing"
		[ "$(jq -r .schema "$run/$dir/$s.json")" = dutlab-result ] || fail "$dir/$s.json is no result document"
		[ "$(jq -r ".configs[$c].reps[0].steps[] | select(.name == \"$s\") | .status" "$m")" = ok ] ||
			fail "$dir: step $s not ok"
	done
	tps=$(jq -r '.phases[] | select(.name == "run") | .metrics.tps.value' "$run/$dir/rw.json")
	awk -v t="$tps" 'BEGIN { exit !(t > 0) }' || fail "$dir: tps $tps"
	# what else ran on the machine: the host's CPU (pgload) beside dutfs's own (the runner)
	busy=$(jq -r '.phases[] | select(.name == "run") | .extra.server.cpu.host.busy_s // empty' "$run/$dir/rw.json")
	awk -v b="$busy" 'BEGIN { exit !(b > 0) }' || fail "$dir: rw.json has no host CPU: $busy"
	dcpu=$(jq -r ".configs[$c].reps[0].steps[] | select(.name == \"rw\") | .dutfs_cpu_s // empty" "$m")
	awk -v b="$dcpu" 'BEGIN { exit !(b > 0) }' || fail "$dir: the manifest has no dutfs CPU for step rw: $dcpu"
	[ -s "$run/$dir/trace.dtr" ] || fail "$dir/trace.dtr missing"
	[ "$(jq -r '.relations | length' "$run/$dir/relmap.json")" -gt 10 ] || fail "$dir/relmap.json has no relations"
	[ -s "$run/$dir/postgres.log" ] || fail "$dir/postgres.log missing"
	# the server log may quote secrets: root's alone (issue #27)
	[ "$(stat -c %a:%U "$run/$dir/postgres.log")" = 600:root ] ||
		fail "$dir/postgres.log is $(stat -c %a:%U "$run/$dir/postgres.log"), expected 600:root"
	[ -s "$run/$dir/dutfs-stats.json" ] || fail "$dir/dutfs-stats.json missing"
	for k in trace relmap server_log stats; do
		[ -n "$(jq -r ".configs[$c].reps[0].artifacts.$k // empty" "$m")" ] || fail "$dir: artifact $k not in the manifest"
	done
	# the trace is complete (footer) and names the steps as phases
	"$DUTLAB" report "$run/$dir/trace.dtr" --relmap "$run/$dir/relmap.json" --by relation >"$WORK/rep.txt" 2>&1 ||
		fail "dutlab report on $dir/trace.dtr failed: $(head -3 "$WORK/rep.txt")"
	grep -q "closed:     cleanly" "$WORK/rep.txt" || fail "$dir/trace.dtr has no footer"
	grep -q "^  rw " "$WORK/rep.txt" || fail "$dir/trace.dtr has no phase rw"
	grep -q "pgbench_accounts" "$WORK/rep.txt" || fail "no pgbench_accounts in $dir's report"
done
[ -s "$run/run.log" ] && grep -q "rw (oltp-run): ok" "$run/run.log" || fail "run.log has no progress lines"
[ -s "$run/experiment.ini" ] || fail "experiment.ini missing"
[ "$(stat -c %a "$run")" = 750 ] || fail "the run directory is $(stat -c %a "$run"), expected 750"
[ "$(stat -c %a "$m")" = 600 ] || fail "manifest.json is $(stat -c %a "$m"), expected 600"
[ "$(jq -r '.configs[1].filesystem' "$m")" = "$fs2" ] || fail "configuration 1 is not $fs2"
# version = 15: the PostgreSQL each configuration ran, in the manifest and the report (#22)
for c in 0 1; do
	[ "$(jq -r ".configs[$c].postgres.major" "$m")" = 15 ] || fail "configuration $c: postgres.major $(jq -c ".configs[$c].postgres" "$m")"
	[ "$(jq -r ".configs[$c].postgres.bindir" "$m")" = "$PGBIN" ] || fail "configuration $c: postgres.bindir"
	want=$("$PGBIN/postgres" --version)
	[ "$(jq -r ".configs[$c].postgres.version" "$m")" = "$want" ] || fail "configuration $c: postgres.version is not \"$want\""
done
grep -qF "PostgreSQL: $("$PGBIN/postgres" --version), from $PGBIN." "$run/report.md" || fail "report.md does not say the PostgreSQL"
# the report dutlab run wrote at the end: Markdown, HTML, PNG charts
[ -s "$run/report.md" ] && [ -s "$run/report.html" ] || fail "no report.md/report.html in $run"
if command -v gnuplot >/dev/null; then
	n=0
	for png in "$run"/charts/*.png; do
		[ -f "$png" ] || continue
		[ "$(stat -c %s "$png")" -gt 1024 ] || fail "$png is smaller than 1 KiB"
		[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$png is not a PNG"
		grep -q "charts/$(basename "$png")" "$run/report.html" || fail "report.html does not show $(basename "$png")"
		n=$((n + 1))
	done
	[ "$n" -ge 2 ] || fail "only $n charts in $run/charts"
	echo "report: $n PNG charts"
else
	grep -q "gnuplot-nox" "$run/report.md" || fail "no charts and no word on gnuplot in report.md"
fi
# compare: one column per configuration, with a ratio against the first
"$DUTLAB" compare "$run" --step rw >"$WORK/cmp.txt" 2>&1 || fail "dutlab compare $run failed: $(head -3 "$WORK/cmp.txt")"
cat "$WORK/cmp.txt"
grep -q "ext4-ordered" "$WORK/cmp.txt" && grep -q "$fs2" "$WORK/cmp.txt" || fail "compare does not name both configurations"
grep -qE "tps.*[0-9.]+x" "$WORK/cmp.txt" || fail "compare has no tps ratio"
it_leftovers "$run" || fail "the run left something behind"
[ ! -e "$WORK/disk.img" ] || fail "the image the run created is still there"
echo "PASS: two configurations complete in $run"
