#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dutlab run, Ctrl-C in the middle of a step and during pgload cluster init:
# the run tears everything down (nothing mounted, no loop device attached,
# no postgres, initdb or dutfs of it left), the manifest says interrupted,
# the exit status is 130, and report.md is written after the teardown,
# saying the run was interrupted and which steps completed.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/it-lib.sh"

command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed (e2fsprogs)"

cat >"$WORK/int.ini" <<INI
[experiment]
name = interrupt
[target disk]
type = image
path = disk.img
size = 1536M
filesystem = ext4-ordered
[step load]
type = oltp-init
scale = 1
[step rw]
type = oltp-run
clients = 2
duration = 120s
INI

run=$WORK/run
# setsid: the runner is a session of its own; SIGINT to it alone, as a
# terminal's Ctrl-C to the foreground process would (its children run in
# process groups of their own)
setsid "$DUTLAB" run "$WORK/int.ini" --out "$run" >"$WORK/out.txt" 2>&1 &
RUN_PID=$!
RUN_DUTLAB_PID=$RUN_PID
# wait until the 120 s step runs
for _ in $(seq 300); do
	grep -q "rw (oltp-run): start" "$WORK/out.txt" 2>/dev/null && break
	kill -0 "$RUN_PID" 2>/dev/null || break
	sleep 0.5
done
grep -q "rw (oltp-run): start" "$WORK/out.txt" || { cat "$WORK/out.txt"; fail "the run never reached step rw"; }
sleep 3
# the cluster and the mount are there now
pgrep -f -- "/run/dutlab-$RUN_PID/" >/dev/null || fail "no process of the run under /run/dutlab-$RUN_PID"
grep -q "/run/dutlab-$RUN_PID/" /proc/self/mountinfo || fail "nothing of the run is mounted mid-step"
losetup -j "$WORK/disk.img" | grep -q . || fail "no loop device attached mid-step"
kill -INT "$RUN_PID"
t0=$(date +%s)
wait "$RUN_PID"
rc=$?
RUN_PID=
cat "$WORK/out.txt"
echo "stopped $(( $(date +%s) - t0 )) s after SIGINT"
[ "$rc" -eq 130 ] || fail "exit status $rc, expected 130"
m=$run/manifest.json
[ "$(jq -r .status "$m")" = interrupted ] || fail "manifest status $(jq -r .status "$m")"
[ "$(jq -r '.configs[0].status' "$m")" = interrupted ] || fail "config status $(jq -r '.configs[0].status' "$m")"
[ "$(jq -r '.configs[0].reps[0].steps[] | select(.name == "rw") | .status' "$m")" = interrupted ] ||
	fail "step rw is not interrupted in the manifest"
[ -n "$(jq -r '.finished_at // empty' "$m")" ] || fail "no finished_at"
it_leftovers "$run" || fail "the interrupted run left something behind"
echo "PASS: run interrupted mid-step torn down"

# After the teardown the run still gets its report: report.md says the run
# was interrupted and which steps completed (load) and which did not (rw).
r=$run/report.md
[ -s "$r" ] || fail "an interrupted run has no report.md"
grep -q "^- status: interrupted" "$r" || fail "report.md does not give the status interrupted"
grep -q "the run was interrupted" "$r" || fail "report.md does not say the run was interrupted"
grep -q "rep 1 (interrupted): steps completed: load; not completed: rw (interrupted)" "$r" ||
	{ grep -n "steps completed" "$r"; fail "report.md does not say which steps completed"; }
# the run directory is named once at the start and once at the end, with the report
[ "$(grep -c "run directory: " "$WORK/out.txt")" -eq 2 ] ||
	{ grep -n "run directory: " "$WORK/out.txt"; fail "\"run directory:\" is not printed exactly twice"; }
grep -q "^run directory: $run (report: $run/report.md)" "$WORK/out.txt" ||
	fail "the last line does not name the report"
# teardown first, report after: nothing of the run was mounted when the report was written
tail -n 5 "$WORK/out.txt" | grep -q "run directory: $run (report:" || fail "the report line is not at the end"
echo "PASS: an interrupted run has a partial report"

# Ctrl-C as a terminal sends it (to the runner's whole process group) while
# pgload cluster init runs: initdb (under runuser, pgload's process group)
# must not outlive the run and keep writing into the mountpoint.
run=$WORK/run2
setsid "$DUTLAB" run "$WORK/int.ini" --out "$run" >"$WORK/out2.txt" 2>&1 &
RUN_PID=$!
RUN_DUTLAB_PID=$RUN_PID
for _ in $(seq 1200); do
	pgrep -f "initdb -D /run/dutlab-$RUN_PID/" >/dev/null && break
	kill -0 "$RUN_PID" 2>/dev/null || break
	sleep 0.05
done
pgrep -f "initdb -D /run/dutlab-$RUN_PID/" >/dev/null ||
	{ cat "$WORK/out2.txt"; skip "initdb finished before it could be interrupted (a machine this fast cannot show it)"; }
kill -INT -- "-$RUN_PID"
wait "$RUN_PID"
rc=$?
RUN_PID=
cat "$WORK/out2.txt"
[ "$rc" -eq 130 ] || fail "interrupted in cluster init: exit status $rc, expected 130"
[ "$(jq -r .status "$run/manifest.json")" = interrupted ] || fail "interrupted in cluster init: manifest status"
# no sleep: an initdb that outlived the run would still be running now
it_leftovers "$run" || fail "the run interrupted in cluster init left something behind"
echo "PASS: run interrupted in cluster init torn down"
