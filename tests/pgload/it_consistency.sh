#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pgload init + run on a real server: balances stay consistent, and the
# committed count pgload reports equals the rows added to pgbench_history,
# for every protocol, pipelining, script mixes and retried serialization
# failures.  Tables and indexes on their own tablespaces (checked in the relmap).
# The server-side evidence in the result document (docs/pgload.md): commits,
# WAL syncs, block reads of a cold, larger-than-shared_buffers run, CPU.
. "$(dirname "$0")/it_lib.sh"

D=$T/data
mkdir "$T/ts_tab" "$T/ts_idx"
"$PGLOAD" cluster init --pgdata "$D" --tablespace tab="$T/ts_tab" --tablespace idx="$T/ts_idx" \
	--set max_connections=40 --set shared_buffers=16MB >/dev/null || fail "cluster init"
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
run extended -c 3 -j 1 -T 3 -M extended -N -P 1
# -P: the run hands its figures to pgload, which prints pgbench's line each second
np=$(grep -Ec '^progress: [0-9.]+ s, [0-9.]+ tps, lat [0-9.]+ ms, [0-9]+ failed$' "$T/extended.out")
[ "$np" -ge 2 ] || { cat "$T/extended.out"; fail "-T 3 -P 1 printed $np progress lines, want 2 or more"; }
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

# ---- server-side evidence (docs/pgload.md, "Server-side evidence") ----
command -v jq >/dev/null || fail "jq is not installed (needed to read the result documents)"
[ "$(q "$D" "SHOW track_io_timing")" = on ] && [ "$(q "$D" "SHOW track_wal_io_timing")" = on ] ||
	fail "cluster init did not turn on track_io_timing and track_wal_io_timing"
srv() { jq -r ".phases[] | select(.name == \"run\") | .extra.server$2" "$T/$1.json"; }
gt0() { awk -v v="$1" 'BEGIN { exit !(v + 0 > 0) }'; }
[ "$(srv simple .collected)" = true ] || fail "simple: no server statistics: $(srv simple .note)"
# -t 150 x 4 clients, simple protocol: the clients made exactly 600 commits in
# the database (their backends publish them when they exit, before pgload's
# second reading); the sampler sits in template1; what may add a few is
# autovacuum/autoanalyze of the pgbench tables and pgload's admin connection's
# relmap snapshot (--relmap) if its statistics are published late.
c=$(srv simple .counters.xact_commit)
awk -v c="$c" 'BEGIN { exit !(c >= 600 && c <= 615) }' ||
	fail "simple: pg_stat_database counted $c commits for pgload's 600 (want 600..615)"
ok "simple: pg_stat_database counted $c commits for pgload's 600"
s=$(srv simple .counters.wal_sync)
gt0 "$s" || fail "simple: tpcb-like run with wal_sync $s"
gt0 "$(srv simple .counters.wal_sync_time)" || fail "simple: wal_sync_time $(srv simple .counters.wal_sync_time)"
[ "$(srv simple .counters.buffers_backend)" != null ] || fail "simple: PostgreSQL 15 has buffers_backend"
gt0 "$(srv simple .cpu.server_s)" && gt0 "$(srv simple .cpu.client_s)" ||
	fail "simple: server CPU $(srv simple .cpu.server_s) client $(srv simple .cpu.client_s): $(srv simple .cpu.note)"
# at the start the 4 clients' backends and the auxiliary processes; by the end
# the clients have disconnected (their backends count through the postmaster)
[ "$(srv simple .cpu.server_processes_at_start)" -ge 7 ] ||
	fail "simple: $(srv simple .cpu.server_processes_at_start) server processes at the start (4 clients + auxiliaries)"
gt0 "$(srv simple .waits.backend_samples)" ||
	fail "simple: no backend wait-event sample ($(srv simple .waits.samples) samples)"
grep -q "^WAL: .* syncs" "$T/simple.out" && grep -q "^CPU per transaction: server [0-9.]* ms" "$T/simple.out" &&
	grep -q "^wait events (" "$T/simple.out" || fail "simple: the summary lacks the server lines"
ok "simple: $s WAL syncs, server CPU $(srv simple .cpu.server_s) s, $(srv simple .waits.samples) wait-event samples"

# Cold shared buffers (16 MB against a 30 MB data set, after a restart): reads.
"$PGLOAD" cluster stop --pgdata "$D" >/dev/null && "$PGLOAD" cluster start --pgdata "$D" >/dev/null ||
	fail "cluster restart"
run cold -S -c 2 -j 2 -T 3
r=$(srv cold .counters.blks_read)
gt0 "$r" || fail "cold: a select-only run on cold 16 MB shared buffers read $r blocks"
gt0 "$(srv cold .counters.blk_read_time)" || fail "cold: blk_read_time $(srv cold .counters.blk_read_time)"
ok "cold: $r blocks read, blk_read_time $(srv cold .counters.blk_read_time) ms"

run off -S -c 1 -T 1 --no-server-stats
[ "$(srv off .collected)" = false ] && [ "$(srv off .counters)" = null ] ||
	fail "--no-server-stats still collected"
ok "--no-server-stats: not collected"
