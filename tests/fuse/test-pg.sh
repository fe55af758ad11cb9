#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: PostgreSQL 15 on dutfs.
#
#     test-pg.sh device|syscall crash|report|kill
#
# crash:  initdb --data-checksums, pgbench -i -s 5, 20 s of tpcb-like, then
#         `pg_ctl stop -m immediate` and a restart (crash recovery).  Every
#         transaction pgbench reported as processed must be in
#         pgbench_history (all had finished before the stop, so exactly that
#         many rows), the balances must agree with the history, and
#         pg_amcheck --heapallindexed must be clean.
# report: a short run, then tools/relmap.sh and `dutlab report --relmap
#         --by relation`
#         must name pgbench_accounts and pgbench_accounts_pkey.
# kill:   with pgbench running, SIGKILL dutfs.  PostgreSQL must get errors
#         (ENOTCONN) and nothing may hang: pgbench and the server stop within
#         bounded times, the dead mount is lazily unmounted.  Then remount on
#         the same backing directory, restart (recovery): every transaction
#         pgbench saw committed is present and pg_amcheck is clean.
. "$(dirname "$0")/lib.sh"

VIEW=${1:?usage: test-pg.sh device|syscall crash|report|kill}
MODE=${2:?usage: test-pg.sh device|syscall crash|report|kill}
DUT_TEST_NAME="pg-$MODE-$VIEW"
SCALE=${PG_TEST_SCALE:-5}
CLIENTS=4
DUTLAB=${DUTLAB:-$DUT_BUILD_ROOT/tools/dutlab}
RELMAP_SH=${RELMAP_SH:-$(dirname "$0")/../../tools/relmap.sh}

dut_need_root
dut_need_dutfs
dut_need_pg
if [ "$MODE" = report ]; then
	[ -x "$DUTLAB" ] || dut_skip "dutlab is not built ($DUTLAB)"
	"$DUTLAB" report --help >/dev/null 2>&1 || dut_skip "dutlab report is not available yet ($DUTLAB report --help fails)"
	[ -x "$RELMAP_SH" ] || dut_skip "tools/relmap.sh does not exist yet"
fi

dut_tmpdir
dut_mount "$T/backing" "$T/mnt" --view "$VIEW" --trace "$T/trace.dtr"
PGLOG=$T/postgres.log  # off the mount: it must survive the kill test
pg_setup "$T/mnt/pgdata"
t0=$SECONDS
pg_initdb
pg_start
say "initdb and start on dutfs ($VIEW view): $((SECONDS - t0)) s; pgbench -i -s $SCALE"
pg_bench -i -s "$SCALE" -q postgres >"$T/init.log" 2>&1 || { tail "$T/init.log"; die "pgbench -i failed"; }

history_count() { psql_q "SELECT count(*) FROM pgbench_history"; }

# Balances move only through tpcb-like transactions, each of which adds one
# history row with the same delta to an account, a teller and a branch.
check_balances() {
	local q="SELECT (SELECT coalesce(sum(delta),0) FROM pgbench_history) || ' ' ||
	                (SELECT sum(abalance) FROM pgbench_accounts) || ' ' ||
	                (SELECT sum(tbalance) FROM pgbench_tellers) || ' ' ||
	                (SELECT sum(bbalance) FROM pgbench_branches)"
	local h a t b
	read -r h a t b <<<"$(psql_q "$q")" || die "balance query failed"
	[ "$h" = "$a" ] && [ "$h" = "$t" ] && [ "$h" = "$b" ] \
		|| die "balances disagree after recovery: history $h, accounts $a, tellers $t, branches $b"
	say "balances agree: sum(delta) = $h in history, accounts, tellers and branches"
}

amcheck() {
	local out
	out=$(pg_amcheck_all 2>&1) || { printf '%s\n' "$out" | head -30 >&2; die "pg_amcheck --heapallindexed reports corruption or failed"; }
	[ -z "$out" ] || { printf '%s\n' "$out" | head -30 >&2; die "pg_amcheck printed problems"; }
	say "pg_amcheck --heapallindexed: clean"
}

processed() { sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$1"; }

case $MODE in
crash)
	pg_bench -c $CLIENTS -j 2 -T 20 postgres >"$T/run.log" 2>&1 || { tail "$T/run.log"; die "pgbench run failed"; }
	n=$(processed "$T/run.log")
	[ -n "$n" ] && [ "$n" -gt 0 ] || die "pgbench processed no transactions: $(tail -3 "$T/run.log")"
	say "pgbench tpcb-like: $n transactions processed ($(grep -m1 '^tps' "$T/run.log"))"
	pg_stop immediate || die "pg_ctl stop -m immediate failed"
	pg_start
	grep -q "database system was interrupted\|database system was not properly shut down" "$PGLOG" \
		|| die "the restart did not go through crash recovery (see $PGLOG)"
	got=$(history_count)
	[ "$got" = "$n" ] || die "after crash recovery pgbench_history has $got rows; pgbench committed $n"
	say "after crash recovery: all $n committed transactions present"
	check_balances
	amcheck
	;;
report)
	pg_bench -c $CLIENTS -j 2 -T 10 postgres >"$T/run.log" 2>&1 || die "pgbench run failed"
	timeout 60 "$RELMAP_SH" -o "$T/relmap.json" -h "$PGSOCK" -p "$PGPORT" -U postgres 2>"$T/relmap.err" \
		|| { cat "$T/relmap.err" >&2; die "tools/relmap.sh failed"; }
	pg_stop fast || die "pg_ctl stop failed"
	dut_umount "$T/mnt" || die "dutfs needed a forced unmount"
	timeout 120 "$DUTLAB" report "$T/trace.dtr" --relmap "$T/relmap.json" --by relation >"$T/report.txt" 2>"$T/report.err" \
		|| { cat "$T/report.err" >&2; die "dutlab report failed"; }
	for rel in pgbench_accounts pgbench_accounts_pkey; do
		grep -qw "$rel" "$T/report.txt" || { cat "$T/report.txt"; die "the report does not name $rel"; }
	done
	say "the report names pgbench_accounts and pgbench_accounts_pkey"
	;;
kill)
	pg_bench -c $CLIENTS -j 2 -T 10 postgres >"$T/run1.log" 2>&1 || die "first pgbench run failed"
	n1=$(processed "$T/run1.log")
	say "first run: $n1 transactions committed"
	# Second run, logging every completed transaction; dutfs dies under it.
	# -n: no vacuum and, above all, no TRUNCATE of pgbench_history first.
	mkdir "$T/pglog" && chown postgres: "$T/pglog"
	(cd "$T/pglog" && timeout 120 runuser -u postgres -- "$PGBIN/pgbench" -h "$PGSOCK" -p "$PGPORT" \
		-n -c $CLIENTS -j 2 -T 60 -l --log-prefix=tx postgres >"$T/run2.log" 2>&1) &
	bench=$!
	sleep 5
	PG_POSTMASTER_PID=$(pg_postmaster_pid) || die "the postmaster is not running before the kill"
	dpid=$(cat "$T/mnt.pid")
	say "SIGKILL dutfs (pid $dpid) under load"
	kill -9 "$dpid"
	dut_wait_pid "$dpid" 10 || die "dutfs did not die on SIGKILL"
	t_kill=$SECONDS
	wait_rc=0
	timeout 60 tail --pid="$bench" -f /dev/null || wait_rc=1
	[ $wait_rc -eq 0 ] || { kill -9 "$bench" 2>/dev/null; die "pgbench still running 60 s after dutfs died (hang)"; }
	wait "$bench"
	say "pgbench ended $((SECONDS - t_kill)) s after the kill: $(grep -m1 -i 'error\|abort' "$T/run2.log" | head -c 200)"
	# The server must not hang either: immediate stop, else SIGKILL (bounded).
	t1=$SECONDS
	pg_kill
	kill -0 "$PG_POSTMASTER_PID" 2>/dev/null && die "the postmaster survived an immediate stop and SIGKILL"
	say "PostgreSQL stopped $((SECONDS - t1)) s after the request"
	grep -q "Transport endpoint is not connected\|Software caused connection abort\|Input/output error" "$PGLOG" \
		|| { tail -20 "$PGLOG"; die "PostgreSQL's log shows no I/O error from the dead mount"; }
	say "PostgreSQL saw: $(grep -m1 -o 'could not[^:]*: \(Transport endpoint is not connected\|Software caused connection abort\|Input/output error\)' "$PGLOG")"
	# The dead mount: lazy unmount, and it must be gone.
	if dut_is_mounted "$T/mnt"; then
		timeout 10 umount -l "$T/mnt" 2>/dev/null || fusermount3 -uz "$T/mnt" 2>/dev/null
	fi
	dut_is_mounted "$T/mnt" && die "the dead mount $T/mnt could not be removed"
	rm -f "$T/mnt.pid"
	# Every transaction pgbench logged as completed was committed.
	n2=$(cat "$T"/pglog/tx.* 2>/dev/null | grep -vc failed)
	say "second run: $n2 transactions logged as committed before the failure"
	# Remount and recover.
	dut_mount "$T/backing" "$T/mnt" --view "$VIEW" --trace "$T/trace2.dtr"
	dut_defer pg_kill  # the server must stop before this mount is unmounted
	pg_start
	got=$(history_count)
	[ "$got" -ge $((n1 + n2)) ] || die "after remount and recovery pgbench_history has $got rows; $n1 + $n2 were committed"
	[ "$got" -le $((n1 + n2 + CLIENTS)) ] || die "pgbench_history has $got rows: more than committed ($((n1 + n2))) plus one in flight per client"
	say "after remount and recovery: $got rows >= $n1 + $n2 committed (at most $CLIENTS in flight)"
	check_balances
	amcheck
	;;
*) die "unknown mode $MODE" ;;
esac
say "PASS"
