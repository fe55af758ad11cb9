#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Durability under a simulated power loss: PostgreSQL 15 on dutfs (syscall
# view) with an `unsynced` fault on every file, so a `crash` on the control
# file throws away every byte written since its file's last fsync (pre-images
# written back; writes in flight torn at 512-byte sectors).
#
#     test-durability.sh barriers      a drive that honours fsync: recovery
#                                      must succeed, pg_amcheck be clean and
#                                      every acknowledged commit be there
#     test-durability.sh no-barriers   negative control: the model drops
#                                      fsync (barriers = off); the test FAILS
#                                      unless it sees damage (failed recovery,
#                                      amcheck errors, lost commits)
#
# Steps: pgload cluster init + pgload init -s 1 on a mount with the durable
# rules, clean stop, remount with the rules under test, start; pgload run
# tpcb-like (4 clients) with, beside it, a client that inserts 1, 2, 3, ...
# into table acked, one autocommitted INSERT per psql call, and logs each id
# once psql returned success; after 8 s `crash`; pgload must see its clients
# abort; `pgload cluster stop --immediate` (the server may have PANICked
# already), `recover`, restart.  Committed = pgload's "transactions actually
# processed" (rows in pgbench_history; it_crash.sh's check) and every logged
# id in acked.
. "$(dirname "$0")/lib-shape.sh"
MODE=${1:?usage: test-durability.sh barriers|no-barriers}
DUT_TEST_NAME=shape-pg-durability-$MODE
CLIENTS=4
CRASH_AFTER_S=8

case $MODE in barriers | no-barriers) ;; *) die "unknown mode $MODE" ;; esac
shape_need_dutfs
shape_need_tool "$PGLOAD"
dut_need_pg
dut_need_prog jq jq

dut_tmpdir
# Both files lose every unsynced byte at a crash; in-flight writes tear.
FAULT='[fault power-loss]
type = unsynced
lose = 100%
torn = random
sector = 512
seed = 7'
# pgload's own files (pgload_state.json and the server log, which the test
# reads after the crash and which nobody fsyncs) are outside the fault: they
# are the harness, not the database under test.
HARNESS='[model passthrough]
type = fixed
read_latency = 0
write_latency = 0

[rule harness-files]
path = pgdata/pgload_*
model = passthrough'
printf '%s\n\n%s\n\n[rule all]\nfault = power-loss\n' "$HARNESS" "$FAULT" >"$T/barriers.ini"
cat >"$T/no-barriers.ini" <<EOF
$HARNESS

; a volatile write cache with barriers off: fsync returns at once and is
; not passed on, so nothing written after the mount is ever durable
[model no-barriers]
type = fixed
read_latency = 0
write_latency = 0
barriers = off

$FAULT

[rule all]
model = no-barriers
fault = power-loss
EOF

MNT=$T/mnt
D=$MNT/pgdata
POSTMASTER=""
pgl() { timeout 180 "$PGLOAD" "$@"; }
# Stop the server whatever state the mount is in: recover the engine first
# (a crashed mount fails pg_ctl's reads of postmaster.pid), immediate stop,
# then SIGKILL the postmaster we started and its children.
stop_server() {
	if [ -n "$POSTMASTER" ] && kill -0 "$POSTMASTER" 2>/dev/null; then
		pgl cluster stop --immediate --pgdata "$D" >/dev/null 2>&1
		if kill -0 "$POSTMASTER" 2>/dev/null; then
			kill -9 "$POSTMASTER" $(pgrep -P "$POSTMASTER") 2>/dev/null
			dut_wait_pid "$POSTMASTER" 10
		fi
	fi
	POSTMASTER=""
}
cleanup_all() {
	[ -e "$MNT/.dutfs/control" ] && printf 'recover\n' >"$MNT/.dutfs/control" 2>/dev/null
	stop_server
	[ -n "${SIDE:-}" ] && kill "$SIDE" 2>/dev/null
	[ -n "${RUN:-}" ] && kill "$RUN" 2>/dev/null
	# remove what PostgreSQL left in the socket directory pgload made
	[ -n "${SOCKDIR:-}" ] && case $SOCKDIR in /tmp/pgload-*) rm -rf "$SOCKDIR" ;; esac
	return 0
}
server_pid() { pgl cluster status --pgdata "$D" 2>/dev/null | sed -n 's/^running (pid \([0-9]*\)).*/\1/p'; }
conninfo() { pgl cluster status --pgdata "$D" | sed -n 's/^conninfo: //p'; }
q() { timeout 120 "$PGBIN/psql" -X -Atq -v ON_ERROR_STOP=1 "$CI" -c "$1"; }
start_server() { # returns non-zero when the server does not come up
	pgl cluster start --pgdata "$D" >"$T/start.log" 2>&1 || return 1
	POSTMASTER=$(server_pid)
	CI=$(conninfo)
	SOCKDIR=$(printf '%s\n' "$CI" | sed -n 's/.*host=\([^ ]*\).*/\1/p')
	PORT=$(printf '%s\n' "$CI" | sed -n 's/.*port=\([0-9]*\).*/\1/p')
	[ -n "$POSTMASTER" ]
}

# ---- a durable start: cluster and pgbench tables ----
dut_mount "$T/backing" "$MNT" --view syscall --shape "$T/barriers.ini"
dut_defer cleanup_all   # runs before the unmount
pgl cluster init --pgdata "$D" >"$T/init.log" 2>&1 || { cat "$T/init.log"; die "pgload cluster init on dutfs failed"; }
POSTMASTER=$(server_pid)
CI=$(conninfo)
SOCKDIR=$(printf '%s\n' "$CI" | sed -n 's/.*host=\([^ ]*\).*/\1/p')
pgl init --pgdata "$D" -s 1 -q >"$T/load.log" 2>&1 || { cat "$T/load.log"; die "pgload init -s 1 failed"; }
q "CREATE TABLE acked (id int PRIMARY KEY)" || die "create table acked"
pgl cluster stop --pgdata "$D" >/dev/null || die "clean stop after the load failed"
POSTMASTER=""
dut_umount "$MNT" || die "dutfs needed a forced unmount"

# ---- the run under the rules being tested ----
dut_mount "$T/backing" "$MNT" --view syscall --shape "$T/$MODE.ini"
dut_defer cleanup_all   # again: before this mount's unmount
start_server || { cat "$T/start.log"; die "start on the $MODE mount failed"; }
say "cluster up on the $MODE mount; tpcb-like with $CLIENTS clients, crash after $CRASH_AFTER_S s"
pgl run --pgdata "$D" -c $CLIENTS -j 2 -T 60 -M prepared --json "$T/run.json" >"$T/run.out" 2>&1 &
RUN=$!
: >"$T/acked.txt"
(
	for ((i = 1; i <= 100000; i++)); do
		timeout 20 "$PGBIN/psql" -X -At -v ON_ERROR_STOP=1 "$CI" -c "INSERT INTO acked VALUES ($i)" \
			>/dev/null 2>&1 || break
		echo "$i" >>"$T/acked.txt"
	done
) &
SIDE=$!
sleep $CRASH_AFTER_S
shape_ctl "$MNT" crash
say "crash: $(jq -c '{crashed: .shape.crashed, crashes: .shape.crashes}' "$MNT/.dutfs/stats.json")"
for ((i = 0; i < 300; i++)); do kill -0 "$RUN" 2>/dev/null || break; sleep 0.1; done
kill -0 "$RUN" 2>/dev/null && die "pgload still running 30 s after the crash"
wait "$RUN"
rc=$?
RUN=""
for ((i = 0; i < 300; i++)); do kill -0 "$SIDE" 2>/dev/null || break; sleep 0.1; done
kill "$SIDE" 2>/dev/null
wait "$SIDE" 2>/dev/null
SIDE=""
n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$T/run.out")
k=$(wc -l <"$T/acked.txt")
[ "$rc" = 2 ] || { cat "$T/run.out"; die "pgload exited $rc after the crash, want 2 (clients aborted)"; }
[ -n "$n" ] && [ "$n" -gt 0 ] || { cat "$T/run.out"; die "pgload committed nothing before the crash"; }
[ "$k" -gt 0 ] || die "the side client had no acknowledged INSERT before the crash"
say "before the crash: pgload committed $n transactions, the side client $k rows"

pgl cluster stop --immediate --pgdata "$D" >/dev/null 2>&1
stop_server
shape_ctl "$MNT" recover

# ---- after the power loss ----
damage=()
started=0
if start_server; then
	started=1
elif [ -f "$D/postmaster.pid" ] && ! [ -s "$D/postmaster.pid" ]; then
	# The lock file lost its content (PostgreSQL fsyncs it; the fsync never
	# reached the device).  pg_ctl refuses an empty one; an administrator
	# would delete it, and so do we, to see what happened to the data.
	damage+=("postmaster.pid is empty after the crash: pg_ctl refused to start")
	rm -f "$D/postmaster.pid"
	start_server && started=1
fi
if [ $started = 0 ]; then
	damage+=("recovery failed: $(cat "$T/start.log" "$D/pgload_server.log" 2>/dev/null | grep 'PANIC\|FATAL\|pg_ctl:' | tail -3 | tr '\n' ' ')")
else
	grep -q "database system was interrupted\|not properly shut down" "$D/pgload_server.log" \
		&& say "the restart went through crash recovery"
	h=$(q "SELECT count(*) FROM pgbench_history" 2>&1) || h="error: $h"
	if ! [[ $h =~ ^[0-9]+$ ]]; then
		damage+=("pgbench_history unreadable: $h")
	elif [ "$h" -lt "$n" ]; then
		damage+=("lost commits: pgload saw $n committed, pgbench_history has $h")
	elif [ "$h" -gt $((n + CLIENTS)) ]; then
		damage+=("pgbench_history has $h rows, more than $n committed + $CLIENTS in flight")
	else
		say "pgbench_history: $h rows for $n acknowledged commits (at most $CLIENTS in flight)"
	fi
	a=$(q "SELECT count(*) FROM acked WHERE id <= $k" 2>&1) || a="error: $a"
	if [ "$a" != "$k" ]; then
		damage+=("acked: $a of the $k acknowledged rows are present")
	else
		say "acked: all $k acknowledged rows present"
	fi
	bal=$(q "SELECT (SELECT coalesce(sum(delta),0) FROM pgbench_history) = (SELECT sum(abalance) FROM pgbench_accounts)
	          AND (SELECT coalesce(sum(delta),0) FROM pgbench_history) = (SELECT sum(tbalance) FROM pgbench_tellers)
	          AND (SELECT coalesce(sum(delta),0) FROM pgbench_history) = (SELECT sum(bbalance) FROM pgbench_branches)" 2>&1)
	[ "$bal" = t ] || damage+=("balances disagree with the history: $bal")
	if out=$(timeout 150 "$PGBIN/pg_amcheck" -h "$SOCKDIR" -p "$PORT" -U postgres --heapallindexed --install-missing postgres 2>&1) && [ -z "$out" ]; then
		say "pg_amcheck --heapallindexed: clean"
	else
		damage+=("pg_amcheck: $(printf '%s' "$out" | head -5 | tr '\n' ' ')")
	fi
fi

if [ "$MODE" = barriers ]; then
	[ ${#damage[@]} = 0 ] || { printf '  %s\n' "${damage[@]}" >&2; die "data was damaged although every fsync reached the device"; }
	say "PASS: nothing acknowledged was lost"
else
	[ ${#damage[@]} -gt 0 ] || die "negative control: with barriers off the crash did no visible damage; this test could not tell a safe device from an unsafe one"
	for d in "${damage[@]}"; do say "damage seen (expected): $d"; done
	say "PASS: the negative control detects the lost writes"
fi
