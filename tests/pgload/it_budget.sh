#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pgload cluster --memory (issue #17): the server runs in a memory cgroup.
#  - budgets below shared_buffers + 32 MiB, or that PostgreSQL cannot start
#    in, are refused before anything is made;
#  - init --memory 64M: the postmaster and every backend are in the cgroup
#    (/proc/PID/cgroup), a select-only run at a scale ~4x the budget keeps
#    the cgroup's peak usage within the budget, and the result document
#    records the budget and the database size;
#  - on a dutfs mount (device view) that run reads from the device: more
#    than 0.5 read records per transaction in the trace, against ~0 for the
#    same run without a budget (start --memory none, data in the page cache);
#  - stop and destroy remove the cgroup, also after a start that failed and
#    after SIGINT or SIGKILL of pgload during start.
. "$(dirname "$0")/it_lib.sh"

DUTFS=${DUTFS:-${DUT_BUILD_ROOT:-build}/fuse/dutfs}
DUTLAB=${DUTLAB:-${DUT_BUILD_ROOT:-build}/tools/dutlab}
command -v jq >/dev/null || skip "jq is not installed"
[ -x "$DUTFS" ] || skip "dutfs is not built ($DUTFS)"
[ -x "$DUTLAB" ] || skip "dutlab is not built ($DUTLAB)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
BUDGET=$((64 << 20))
SCALE=${PGLOAD_IT_BUDGET_SCALE:-16}     # ~240 MB of tables and indexes: ~4x the budget

# the cgroup directory the state file of $1 names ("" without)
memcg() { jq -r '.memory_cgroup // empty' "$1/pgload_state.json"; }

# --- refusals, before initdb --------------------------------------------------
"$PGLOAD" cluster init --pgdata "$T/small" --memory 40M >"$T/small.out" 2>&1 && fail "a 40M budget was accepted"
grep -q "too small for shared_buffers = 10 MiB.*at least 42 MiB" "$T/small.out" ||
	{ cat "$T/small.out"; fail "no clear message for a budget below shared_buffers + 32 MiB"; }
[ -e "$T/small" ] && fail "a refused init made $T/small"
"$PGLOAD" cluster init --pgdata "$T/small" --memory 64M --set shared_buffers=48MB >"$T/small.out" 2>&1 &&
	fail "--memory 64M with shared_buffers=48MB was accepted"
grep -q "at least 80 MiB" "$T/small.out" || { cat "$T/small.out"; fail "no message for shared_buffers=48MB"; }
"$PGLOAD" cluster init --pgdata "$T/small" --memory 16M >"$T/small.out" 2>&1 && fail "a 16M budget was accepted"
grep -q "smallest budget is 32 MiB" "$T/small.out" || { cat "$T/small.out"; fail "no message for 16M"; }
ok "budgets below the minimum are refused with a message, nothing made"

# a server that cannot start (max_connections=0 is refused by PostgreSQL) leaves no cgroup
"$PGLOAD" cluster init --pgdata "$T/bad" --memory 64M --set max_connections=0 >"$T/bad.out" 2>&1 &&
	fail "a server with max_connections=0 started"
grep -q "the server did not start" "$T/bad.out" || { cat "$T/bad.out"; fail "no start failure reported"; }
cg=$(memcg "$T/bad")
[ -n "$cg" ] || fail "the failed start recorded no cgroup"
[ -d "$cg" ] && { rmdir "$cg"; fail "the failed start left the cgroup $cg"; }
"$PGLOAD" cluster destroy --pgdata "$T/bad" || fail "destroy after a failed start"
ok "a failed start removes its cgroup"

# --- on a dutfs mount ------------------------------------------------------------
B=$T/backing M=$T/mnt
mkdir "$B" "$M" && chmod 755 "$B" "$M"
DUTFS_PID=
mount_dutfs() {   # $1: trace file
	"$DUTFS" "$B" "$M" --view device --trace "$1" --pidfile "$T/dutfs.pid" || skip "dutfs could not mount here"
	DUTFS_PID=$(cat "$T/dutfs.pid")
}
unmount() {
	[ -f "$M/data/pgload_state.json" ] && "$PGLOAD" cluster stop --immediate --pgdata "$M/data" >/dev/null 2>&1
	umount "$M" 2>/dev/null
	i=0
	while [ -n "$DUTFS_PID" ] && kill -0 "$DUTFS_PID" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
	DUTFS_PID=
}
leftover=
final() {
	[ -f "$M/data/pgload_state.json" ] && "$PGLOAD" cluster destroy --pgdata "$M/data" >/dev/null 2>&1
	unmount
	cleanup
	[ -n "$leftover" ] && [ -d "$leftover" ] && rmdir "$leftover" 2>/dev/null
}
trap final EXIT
mount_dutfs "$T/budget.dtr"

"$PGLOAD" cluster init --pgdata "$M/data" --memory 64M >"$T/init.out" 2>&1 || { cat "$T/init.out"; fail "cluster init --memory 64M"; }
cg=$(memcg "$M/data")
leftover=$cg
[ -n "$cg" ] && [ -d "$cg" ] || fail "no cgroup recorded or made ($cg)"
case "$cg" in /sys/fs/cgroup/*/pgload-*) ;; *) fail "unexpected cgroup directory $cg" ;; esac
[ "$(jq -r .memory_bytes "$M/data/pgload_state.json")" = $BUDGET ] || fail "budget not recorded"
[ "$(cat "$cg/memory.limit_in_bytes" 2>/dev/null || cat "$cg/memory.max")" = $BUDGET ] || fail "cgroup limit is not 64 MiB"
[ "$(q "$M/data" "SHOW shared_buffers")" = 16MB ] || fail "shared_buffers is not min(128MB, 64M/4)"
[ "$(q "$M/data" "SHOW maintenance_work_mem")" = 8MB ] || fail "maintenance_work_mem is not 64M/8"
ok "init --memory 64M: cgroup $cg, limit 64 MiB, shared_buffers 16MB, maintenance_work_mem 8MB"

# every server process is in the cgroup
in_cgroup() {   # every process of the server of $1 is a member of $2
	pm=$(head -1 "$1/postmaster.pid")
	rel=${2#/sys/fs/cgroup/memory}; rel=${rel#/sys/fs/cgroup}
	n=0
	for p in "$pm" $(pgrep -P "$pm"); do
		grep -qE "^[0-9]+:(memory)?:$rel\$|^0::/dutlab/${2##*/}\$" "/proc/$p/cgroup" ||
			{ cat "/proc/$p/cgroup"; fail "server process $p ($(tr '\0' ' ' <"/proc/$p/cmdline")) is not in $2"; }
		n=$((n + 1))
	done
	[ $n -ge 5 ] || fail "only $n server processes seen"
	echo $n
}
n=$(in_cgroup "$M/data" "$cg") || exit 1
ok "the postmaster and its $((n - 1)) children are in the cgroup"

"$PGLOAD" init --pgdata "$M/data" -s "$SCALE" -q --json "$T/load.json" || fail "pgload init -s $SCALE under the budget"
db=$(jq -r .target.database_bytes "$T/load.json")
[ "$db" -gt $((3 * BUDGET)) ] || fail "database of $db bytes is not several times the budget"
ok "scale $SCALE loaded: database $((db >> 20)) MiB, $(jq -r .config.memory.database_per_budget "$T/load.json")x the budget"

"$PGLOAD" run --pgdata "$M/data" -S -c 4 -j 2 -T 15 --json "$T/run.json" >"$T/run.out" &
run_pid=$!
BG_PIDS=$run_pid
sleep 5
n=$(in_cgroup "$M/data" "$cg") || exit 1
[ "$n" -ge 9 ] || fail "only $n server processes during a run with 4 clients"
wait $run_pid || fail "select-only run"
BG_PIDS=
ok "during the run with 4 clients all $n server processes (the backends too) are in the cgroup"
[ "$(jq -r .config.memory.budget_bytes "$T/run.json")" = $BUDGET ] || fail "result document lacks the budget"
[ "$(jq -r .target.database_bytes "$T/run.json")" -gt $((3 * BUDGET)) ] || fail "result document lacks the database size"
peak=$(cat "$cg/memory.max_usage_in_bytes" 2>/dev/null || cat "$cg/memory.peak")
# the kernel may force a few pages of kernel memory past the limit (seen: 2 pages)
[ "$peak" -le $((BUDGET + (256 << 10))) ] || fail "cgroup peak $peak above the budget $BUDGET"
[ "$peak" -gt $((BUDGET / 2)) ] || fail "cgroup peak $peak: the budget was never used"
grep -q "^memory budget: 64 MiB (peak usage" "$T/run.out" || fail "run summary does not state the budget"
"$PGLOAD" cluster status --pgdata "$M/data" >"$T/status.out"
grep -q "^memory budget: 64 MiB (cgroup $cg)" "$T/status.out" && grep -q "^memory usage: .*(peak " "$T/status.out" ||
	{ cat "$T/status.out"; fail "status does not print the budget and the usage"; }
ok "peak usage $((peak >> 20)) MiB within the 64 MiB budget; status and the result document state it"

# device reads per transaction (the trace's read records of the run phase)
reads_per_txn() {   # $1 trace, $2 run output
	r=$("$DUTLAB" export "$1" --format csv --ops read --phase "run start" | tail -n +2 | wc -l)
	t=$(processed "$2")
	[ "$t" -gt 0 ] || fail "no transactions in $2"
	echo "$r $t" | awk '{ printf "%.3f", $1 / $2 }'
}
"$PGLOAD" cluster stop --pgdata "$M/data" || fail "stop"
[ -d "$cg" ] && fail "stop left the cgroup $cg"
ok "stop removed the cgroup"
unmount
with=$(reads_per_txn "$T/budget.dtr" "$T/run.out") || exit 1
awk -v x="$with" 'BEGIN { exit !(x > 0.5) }' || fail "with the budget only $with device reads per transaction"
ok "with the 64 MiB budget: $with device reads per transaction ($(processed "$T/run.out") transactions)"

# the same run without a budget, the data in the page cache (as after a load)
mount_dutfs "$T/nobudget.dtr"
"$PGLOAD" cluster start --pgdata "$M/data" --memory none >"$T/start.out" 2>&1 || { cat "$T/start.out"; fail "start --memory none"; }
[ -z "$(memcg "$M/data")" ] || fail "start --memory none still records a cgroup"
find "$M/data/base" -type f -exec cat {} + >/dev/null
"$PGLOAD" run --pgdata "$M/data" -S -c 4 -j 2 -T 15 >"$T/run2.out" || fail "select-only run without a budget"
"$PGLOAD" cluster stop --pgdata "$M/data" || fail "stop"
unmount
without=$(reads_per_txn "$T/nobudget.dtr" "$T/run2.out") || exit 1
awk -v x="$without" 'BEGIN { exit !(x < 0.05) }' || fail "without a budget still $without device reads per transaction"
ok "without a budget: $without device reads per transaction ($(processed "$T/run2.out") transactions)"

# --- interrupted starts ------------------------------------------------------------
mount_dutfs "$T/rest.dtr"
start_and() {   # $1: signal for pgload once its cgroup exists
	"$PGLOAD" cluster start --pgdata "$M/data" --memory 64M >"$T/start.out" 2>&1 &
	sp=$!
	i=0
	until c=$(memcg "$M/data") && [ -n "$c" ] && [ -d "$c" ]; do
		i=$((i + 1))
		[ $i -lt 500 ] || { kill $sp; fail "start made no cgroup"; }
		sleep 0.01
	done
	kill -"$1" $sp
	wait $sp
	echo "$c"
}
cg=$(start_and INT) || exit 1
leftover=$cg
[ -d "$cg" ] && fail "SIGINT during start left the cgroup $cg"
"$PGLOAD" cluster status --pgdata "$M/data" >/dev/null && fail "SIGINT during start left the server running"
grep -q "interrupted" "$T/start.out" || { cat "$T/start.out"; fail "no message after SIGINT"; }
ok "SIGINT during start: server stopped again, cgroup removed"
cg=$(start_and KILL) || exit 1
leftover=$cg
sleep 3          # pg_ctl, orphaned, finishes the start: the server runs in the cgroup
"$PGLOAD" cluster destroy --pgdata "$M/data" || fail "destroy after SIGKILL during start"
[ -d "$cg" ] && fail "destroy after SIGKILL during start left the cgroup $cg"
ok "SIGKILL during start: destroy removed the cgroup"

# --- destroy removes it ------------------------------------------------------------
"$PGLOAD" cluster init --pgdata "$M/data" --memory 64M >/dev/null 2>&1 || fail "init again"
cg=$(memcg "$M/data")
leftover=$cg
[ -d "$cg" ] || fail "no cgroup"
"$PGLOAD" cluster destroy --pgdata "$M/data" || fail "destroy"
[ -d "$cg" ] && fail "destroy left the cgroup $cg"
ok "destroy of a running budgeted cluster removed its cgroup"
exit 0
