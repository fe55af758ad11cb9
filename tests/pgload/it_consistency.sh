#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pgload init + run on a real server: balances stay consistent, and the
# committed count pgload reports equals the rows added to pgbench_history,
# for every protocol, pipelining, script mixes and retried serialization
# failures.  Tables and indexes on their own tablespaces (checked in the relmap).
. "$(dirname "$0")/it_lib.sh"

D=$T/data
mkdir "$T/ts_tab" "$T/ts_idx"
"$PGLOAD" cluster init --pgdata "$D" --tablespace tab="$T/ts_tab" --tablespace idx="$T/ts_idx" \
	--set max_connections=40 >/dev/null || fail "cluster init"
"$PGLOAD" init --pgdata "$D" -s 2 --jobs 2 --tables-on tab --indexes-on idx \
	--json "$T/init.json" --relmap "$T/relmap.json" >"$T/init.out" 2>&1 || { cat "$T/init.out"; fail "pgload init"; }
[ "$(q "$D" "SELECT count(*) FROM pgbench_accounts")" = 200000 ] || fail "accounts != 200000"
[ "$(q "$D" "SELECT count(*) FROM pgbench_tellers")" = 20 ] || fail "tellers != 20"
[ "$(q "$D" "SELECT count(DISTINCT bid) FROM pgbench_accounts")" = 2 ] || fail "accounts.bid wrong"
[ "$(q "$D" "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace WHERE relname='pgbench_accounts'")" = tab ] ||
	fail "pgbench_accounts not on tablespace tab"
[ "$(q "$D" "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace WHERE relname='pgbench_accounts_pkey'")" = idx ] ||
	fail "pgbench_accounts_pkey not on tablespace idx"
grep -q '"name": *"pgbench_accounts_pkey"' "$T/relmap.json" && grep -q '"tablespace": *"idx"' "$T/relmap.json" ||
	fail "relmap lacks the index on idx"
grep -q '"kind": *"index"' "$T/relmap.json" && grep -q '"role": *"checkpointer"' "$T/relmap.json" ||
	fail "relmap lacks kinds or processes"
grep -q '"name": *"init/load"' "$T/init.json" || fail "init result has no init/load phase"
ok "init: pgbench-compatible data on the named tablespaces, relmap and result written"

total=0
run() { # name, expected tpcb-family transactions from this run or "mixed", args...
	name=$1; shift
	"$PGLOAD" run --pgdata "$D" --json "$T/$name.json" "$@" >"$T/$name.out" 2>&1 ||
		{ cat "$T/$name.out"; fail "run $name: exit $?"; }
	n=$(processed "$T/$name.out")
	[ -n "$n" ] && [ "$n" -gt 0 ] || fail "run $name: nothing processed"
	grep -q '"tps_including_connections"' "$T/$name.json" && grep -q '"per_second"' "$T/$name.json" ||
		fail "run $name: JSON lacks tps or the per-second series"
}
check_history() {
	h=$(q "$D" "SELECT count(*) FROM pgbench_history")
	[ "$h" = "$total" ] || fail "$1: history has $h rows, pgload reported $total committed"
	ok "$1: $total committed = $h history rows"
}

run simple -c 4 -j 2 -t 150 -M simple --relmap "$T/run_relmap.json"
nb=$(grep -c '"role": *"client backend"' "$T/run_relmap.json")
[ "$nb" -ge 5 ] || fail "run relmap lists $nb client backends, want the 4 clients and pgload's own"
[ "$(processed "$T/simple.out")" = 600 ] || fail "-c 4 -t 150 processed $(processed "$T/simple.out")"
total=$((total + 600)); check_history "simple protocol"
before=$(q "$D" "SELECT coalesce(sum(delta),0) FROM pgbench_history")
run extended -c 3 -j 1 -T 3 -M extended -N
skipped=$(( $(q "$D" "SELECT coalesce(sum(delta),0) FROM pgbench_history") - before ))
total=$((total + $(processed "$T/extended.out"))); check_history "extended, simple-update, -T"
run pipelined -c 4 -j 2 -T 3 -M prepared --pipeline
total=$((total + $(processed "$T/pipelined.out"))); check_history "prepared + pipeline"
run mix -c 4 -j 2 -t 200 -M prepared -b select-only@3 -b tpcb-like@1 -P 1
tp=$(sed -n 's/^script 2: tpcb-like, weight 1: \([0-9]*\) committed.*/\1/p' "$T/mix.out")
[ -n "$tp" ] && [ "$tp" -gt 0 ] && [ "$tp" -lt 800 ] || fail "mix: tpcb-like share $tp"
total=$((total + tp)); check_history "weighted mix"
check_balances "$D" "$skipped"

# Serialization failures: serializable isolation on two branch rows, retried until done.
ci=$(conninfo "$D")
"$PGLOAD" run -d "$ci options='-c default_transaction_isolation=serializable'" -c 6 -j 2 -t 60 \
	-M prepared --max-tries 1000 >"$T/retry.out" 2>&1 || { cat "$T/retry.out"; fail "retry run"; }
grep -q '^number of failed transactions: 0 ' "$T/retry.out" || fail "retry run has failures"
retries=$(sed -n 's/^total number of retries: //p' "$T/retry.out")
[ "${retries:-0}" -gt 0 ] || fail "no serialization failure was retried (retries=$retries)"
total=$((total + 360)); check_history "retried serialization failures ($retries retries)"
check_balances "$D" "$skipped"
