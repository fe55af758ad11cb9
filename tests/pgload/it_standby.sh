#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pgload cluster standby and the replay lag of pgload run (issue #8):
# an async standby replays a row within 10 s; a 5 s run records a
# replica_lag series; a --sync standby is sync and commits go through;
# destroying it (after a crash) leaves no commit on the primary waiting and
# synchronous_standby_names empty; a --primary that is not a running pgload
# cluster is refused clearly.  Every standby is destroyed before its primary,
# even on failure.
. "$(dirname "$0")/it_lib.sh"

[ -x "$BINDIR/pg_basebackup" ] || skip "pg_basebackup is not installed ($BINDIR/pg_basebackup missing)"
command -v python3 >/dev/null || skip "python3 is not installed (reads the result document)"

P=$T/primary
A=$T/async1
S=$T/sync1
cleanup() {
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	# Standbys first: destroying one undoes what it did on its primary.
	for d in "$A" "$S" "$P"; do
		[ -f "$d/pgload_state.json" ] && "$PGLOAD" cluster destroy --pgdata "$d" >/dev/null 2>&1
	done
	rm -rf "$T"
}

# within SECONDS CMD...: retry CMD every 0.2 s until it succeeds
within() {
	n=$(($1 * 5)); shift
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}

# --- bad input -----------------------------------------------------------
mkdir "$T/notpg"
"$PGLOAD" cluster standby --pgdata "$T/x" --primary "$T/notpg" >"$T/out" 2>&1; rc=$?
"$PGLOAD" cluster start --pgdata "$T/notpg" >/dev/null 2>&1; usage_rc=$?
[ $rc -ne 0 ] && [ $rc = $usage_rc ] || fail "--primary not a pgload cluster: exit $rc (other usage errors: $usage_rc)"
grep -q -- "--primary $T/notpg: .*not a cluster made by pgload" "$T/out" || { cat "$T/out"; fail "unclear message"; }
[ ! -e "$T/x" ] || fail "a refused standby left $T/x behind"
ok "--primary that is not a pgload cluster: refused (exit $rc)"

"$PGLOAD" cluster init --pgdata "$P" --set fsync=off >/dev/null || fail "cluster init primary"
"$PGLOAD" cluster stop --pgdata "$P" || fail "stop primary"
"$PGLOAD" cluster standby --pgdata "$T/x" --primary "$P" >"$T/out" 2>&1; rc=$?
[ $rc = $usage_rc ] && grep -q "is not running" "$T/out" || { cat "$T/out"; fail "stopped primary: exit $rc"; }
ok "stopped primary: refused (exit $rc)"
"$PGLOAD" cluster start --pgdata "$P" >/dev/null || fail "start primary"
"$PGLOAD" init --pgdata "$P" -s 1 -q || fail "pgload init"

# --- async standby ---------------------------------------------------------
"$PGLOAD" cluster standby --pgdata "$A" --primary "$P" >"$T/a.out" 2>&1 || { cat "$T/a.out"; fail "cluster standby (async)"; }
grep -q '^replication: streaming, sync_state async' "$T/a.out" || { cat "$T/a.out"; fail "async standby not streaming"; }
[ "$(conninfo "$A")" != "$(conninfo "$P")" ] || fail "standby shares the primary's socket and port"
[ "$(q "$A" "SELECT pg_is_in_recovery()")" = t ] || fail "the standby is not in recovery"
[ "$(q "$P" "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'pgload_async1' AND active")" = 1 ] ||
	fail "no active slot pgload_async1 on the primary"
q "$P" "CREATE TABLE it_standby(x int); INSERT INTO it_standby VALUES (4711)" >/dev/null || fail "insert on the primary"
within 10 sh -c "[ \"\$(psql -X -At '$(conninfo "$A")' -c 'SELECT x FROM it_standby' 2>/dev/null)\" = 4711 ]" ||
	fail "the row inserted on the primary did not appear on the standby within 10 s"
ok "async standby: streaming, replays a row within 10 s"
"$PGLOAD" cluster status --pgdata "$A" | grep -q '^mode: async' || fail "status of the standby"
"$PGLOAD" cluster stop --pgdata "$A" || fail "stop the standby"
"$PGLOAD" cluster status --pgdata "$A" >/dev/null; [ $? = 3 ] || fail "status of a stopped standby is not 3"
"$PGLOAD" cluster start --pgdata "$A" >/dev/null || fail "start the standby again"
within 10 sh -c "'$PGLOAD' cluster status --pgdata '$A' | grep -q '^replication: streaming'" ||
	fail "the restarted standby does not stream again within 10 s"
ok "stop, status, start of a standby"

"$PGLOAD" run --pgdata "$P" -c 2 -T 5 --json "$T/run.json" >"$T/run.out" 2>&1 || { cat "$T/run.out"; fail "pgload run"; }
grep -E '^standby async1 \(async\): replay lag p50 [0-9.]+ ms, max [0-9.]+ ms, max [0-9.]+ MB behind' "$T/run.out" ||
	{ cat "$T/run.out"; fail "no replay lag line in the summary"; }
python3 - "$T/run.json" <<'EOF' || fail "replica lag in the result document"
import json, math, sys
d = json.load(open(sys.argv[1]))
ph = [p for p in d["phases"] if p["name"] == "run"][0]
assert d["config"]["replica"] == {"mode": "async", "application_name": "async1"}, d["config"]["replica"]
s = ph["series"]["replica_lag"]
assert s["columns"] == ["t_s", "replay_lag_ms", "replay_lag_bytes", "flush_lag_ms", "write_lag_ms"], s["columns"]
assert len(s["rows"]) >= 3, "only %d replica_lag rows" % len(s["rows"])
for row in s["rows"]:
    assert all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in row), row
m = ph["metrics"]
assert m["replay_lag_ms_p50"]["value"] <= m["replay_lag_ms_p99"]["value"] <= m["replay_lag_ms_max"]["value"], m
assert m["replay_lag_bytes_max"]["unit"] == "bytes"
assert 0 <= m["replay_catchup_ms"]["value"] < 30000, m
print("replica_lag rows: %d, replay lag p50 %.1f ms max %.1f ms, max %d bytes behind, caught up in %.0f ms" % (
    len(s["rows"]), m["replay_lag_ms_p50"]["value"], m["replay_lag_ms_max"]["value"],
    m["replay_lag_bytes_max"]["value"], m["replay_catchup_ms"]["value"]))
EOF
ok "pgload run -T 5 records replica_lag"

# --- sync standby ----------------------------------------------------------
"$PGLOAD" cluster standby --pgdata "$S" --primary "$P" --sync --set hot_standby_feedback=on >"$T/s.out" 2>&1 ||
	{ cat "$T/s.out"; fail "cluster standby --sync"; }
[ "$(q "$S" "SHOW hot_standby_feedback")" = on ] || fail "--set not applied to the standby"
[ "$(q "$P" "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'sync1'")" = sync ] ||
	fail "sync_state of sync1 is not sync"
[ "$(q "$P" "SHOW synchronous_standby_names")" = '"sync1"' ] || fail "synchronous_standby_names not set"
timeout 10 psql -X -At -v ON_ERROR_STOP=1 "$(conninfo "$P")" -c "INSERT INTO it_standby VALUES (2)" >/dev/null ||
	fail "a commit on the primary with a sync standby did not succeed within 10 s"
[ "$(q "$S" "SELECT count(*) FROM it_standby WHERE x = 2")" = 1 ] || fail "sync commit not on the standby"
ok "sync standby: sync_state sync, commits succeed"

# Crash the sync standby: commits on the primary wait (that is sync replication) ...
kill -9 "$(head -1 "$S/postmaster.pid")" || fail "kill the sync standby"
timeout 30 psql -X -At "$(conninfo "$P")" -c "INSERT INTO it_standby VALUES (3)" >"$T/hang.out" 2>&1 &
HANG=$!
BG_PIDS=$HANG
sleep 1
kill -0 "$HANG" 2>/dev/null || fail "a commit went through with the sync standby down (not synchronous?)"
# ... until destroy releases them.
"$PGLOAD" cluster destroy --pgdata "$S" || fail "destroy the crashed sync standby"
within 5 sh -c "! kill -0 $HANG" || fail "the waiting commit still hangs 5 s after destroy"
wait "$HANG" || { cat "$T/hang.out"; fail "the waiting commit failed"; }
BG_PIDS=""
timeout 5 psql -X -At -v ON_ERROR_STOP=1 "$(conninfo "$P")" -c "INSERT INTO it_standby VALUES (4)" >/dev/null ||
	fail "a new commit on the primary hangs after destroying the sync standby"
[ -z "$(q "$P" "SHOW synchronous_standby_names")" ] || fail "synchronous_standby_names is not empty"
[ "$(q "$P" "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'pgload_sync1'")" = 0 ] ||
	fail "destroy left the slot pgload_sync1"
[ ! -e "$S" ] || fail "the standby directory is still there"
ok "destroy of a crashed sync standby: commits go through, synchronous_standby_names empty, slot dropped"

# With the primary stopped, destroy removes the slot from its files.
"$PGLOAD" cluster stop --pgdata "$P" || fail "stop the primary"
"$PGLOAD" cluster destroy --pgdata "$A" || fail "destroy the async standby (primary stopped)"
"$PGLOAD" cluster start --pgdata "$P" >/dev/null || fail "start the primary again"
[ "$(q "$P" "SELECT count(*) FROM pg_replication_slots")" = 0 ] || fail "destroy left a slot"
ok "destroy of the async standby with its primary stopped drops its slot"
