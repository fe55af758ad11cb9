#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Out of cache by default (issue #17): the built-in default experiment (the
# main job, its text taken from tools/run/experiment_default.c with only the
# target directory changed) runs PostgreSQL in a memory budget several times
# smaller than its database, so its select-only step reads from the device:
# more than 0.5 device-view reads per transaction (the trace report's
# read_ops of the phase over pgload's committed transactions).  The
# manifest records the budget, the peak usage and the database size, the
# run's output states them, and no cgroup outlives the run, also when the
# run is interrupted mid-step.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/it-lib.sh"

src=$here/../../../tools/run/experiment_default.c
[ -r "$src" ] || fail "cannot read $src"

# the C string, line by line: \t"text\n" -> text
sed -n 's/^\t"\(.*\)\\n";\{0,1\}$/\1/p' "$src" |
	sed "s|^path = .*|path = $WORK/default|" >"$WORK/default.ini"
grep -q '^memory = ' "$WORK/default.ini" || { cat "$WORK/default.ini"; fail "the default experiment has no memory budget"; }
mkdir -m 755 "$WORK/default"

# the budget's cgroup named in a repetition's cluster.log
cgroups_of() { sed -n 's/^memory budget: .* (cgroup \(.*\))$/\1/p' "$1"/c00-*/rep1/cluster.log; }

run=$WORK/run
t0=$(date +%s)
"$DUTLAB" run "$WORK/default.ini" --out "$run" >"$WORK/out.txt" 2>&1 &
RUN_PID=$!
RUN_DUTLAB_PID=$RUN_PID
wait "$RUN_PID"
rc=$?
RUN_PID=
took=$(( $(date +%s) - t0 ))
cat "$WORK/out.txt"
[ "$rc" -eq 0 ] || fail "dutlab run exited $rc"
m=$run/manifest.json
[ "$(jq -r .status "$m")" = complete ] || fail "manifest status $(jq -r .status "$m")"
budget=$(jq -r '.configs[0].memory_budget_bytes' "$m")
[ "$budget" = $((80 << 20)) ] || fail "manifest budget $budget, expected 80 MiB"
[ "$(jq -r '.configs[0].reps[0].memory.budget_bytes' "$m")" = "$budget" ] || fail "the repetition's budget was not read back"
db=$(jq -r '.configs[0].reps[0].memory.database_bytes' "$m")
peak=$(jq -r '.configs[0].reps[0].memory.peak_bytes' "$m")
[ "$db" -gt $((4 * budget)) ] || fail "database $db bytes is not 4x the budget"
[ "$peak" -gt 0 ] && [ "$peak" -le $((budget + (256 << 10))) ] || fail "peak usage $peak beyond the budget $budget"
grep -q "memory budget 80 MiB (peak .*), database .*: [0-9.]*x the budget" "$WORK/out.txt" ||
	fail "the run's output does not state the budget and the database size"
echo "ok: budget 80 MiB, peak $((peak >> 20)) MiB, database $((db >> 20)) MiB ($(jq -r '.configs[0].reps[0].memory.database_per_budget' "$m")x)"

dir=$run/$(jq -r '.configs[0].reps[0].dir' "$m")
"$DUTLAB" report "$dir/trace.dtr" --by phase --json "$WORK/trace.json" >/dev/null 2>&1 ||
	fail "dutlab report of the trace"
for step in select-only tpcb-like; do
	reads=$(jq -r ".phases[] | select(.name == \"$step\") | .metrics.read_ops.value" "$WORK/trace.json")
	txns=$(jq -r '.phases[] | select(.name == "run") | .metrics.committed.value' "$dir/$step.json")
	[ -n "$reads" ] && [ "${txns:-0}" -gt 0 ] || fail "$step: no read count ($reads) or no transactions ($txns)"
	per=$(awk -v r="$reads" -v t="$txns" 'BEGIN { printf "%.3f", r / t }')
	echo "ok: $step: $reads device reads / $txns transactions = $per per transaction"
	[ "$step" = tpcb-like ] || awk -v x="$per" 'BEGIN { exit !(x > 0.5) }' ||
		fail "$step: $per device reads per transaction: served from memory, not the device"
done
echo "ok: the default experiment took $took s"
[ "$took" -le 300 ] || fail "the default experiment took $took s, meant to take about two minutes"
for cg in $(cgroups_of "$run"); do
	[ -d "$cg" ] && fail "the run left the cgroup $cg"
done
[ -n "$(cgroups_of "$run")" ] || fail "cluster.log names no cgroup"
it_leftovers "$run" || fail "the run left something behind"
echo "PASS: the default experiment reads from the device and states its budget"

# interrupted mid-step: the teardown removes the cgroup
cat >"$WORK/int.ini" <<INI
[experiment]
name = budget-interrupt
[target work]
type = directory
path = $WORK/int
[postgres]
memory = 48MiB
[step load]
type = oltp-init
scale = 2
[step ro]
type = oltp-run
script = select-only
clients = 2
duration = 120s
INI
mkdir -m 755 "$WORK/int"
run=$WORK/run2
setsid "$DUTLAB" run "$WORK/int.ini" --out "$run" >"$WORK/out2.txt" 2>&1 &
RUN_PID=$!
RUN_DUTLAB_PID=$RUN_PID
for _ in $(seq 300); do
	grep -q "ro (oltp-run): start" "$WORK/out2.txt" 2>/dev/null && break
	kill -0 "$RUN_PID" 2>/dev/null || break
	sleep 0.5
done
grep -q "ro (oltp-run): start" "$WORK/out2.txt" || { cat "$WORK/out2.txt"; fail "the run never reached step ro"; }
sleep 3
cg=$(cgroups_of "$run")
[ -n "$cg" ] && [ -d "$cg" ] || fail "no budget cgroup mid-step ($cg)"
kill -INT "$RUN_PID"
wait "$RUN_PID"
rc=$?
RUN_PID=
cat "$WORK/out2.txt"
[ "$rc" -eq 130 ] || fail "exit status $rc, expected 130"
[ -d "$cg" ] && fail "the interrupted run left the cgroup $cg"
it_leftovers "$run" || fail "the interrupted run left something behind"
echo "PASS: an interrupted run removes its cgroup"
