#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pgload cluster init/start/stop/status/destroy, with tablespaces, a separate
# WAL directory and --set; crash (stop --immediate) and restart; refusals.
. "$(dirname "$0")/it_lib.sh"

D=$T/data
mkdir "$T/ts_fast" "$T/ts_idx"
"$PGLOAD" cluster init --pgdata "$D" --wal-dir "$T/wal" --tablespace fast="$T/ts_fast" \
	--tablespace idx="$T/ts_idx" --set shared_buffers=48MB --set "application_name=it's" \
	>"$T/init.out" 2>&1 || { cat "$T/init.out"; fail "cluster init"; }
grep -q '^conninfo: host=/tmp/pgload-' "$T/init.out" || fail "init prints no conninfo"
"$PGLOAD" cluster status --pgdata "$D" | grep -q '^running' || fail "not running after init"
"$PGLOAD" cluster status --pgdata "$D" | grep -qE '^postgres: postgres \(PostgreSQL\) [0-9]+\.[0-9]+.* \(major [0-9]+, bindir /' ||
	fail "status does not name the server's version: $("$PGLOAD" cluster status --pgdata "$D" | grep '^postgres')"
[ "$(q "$D" "SHOW data_checksums")" = on ] || fail "no data checksums"
[ "$(q "$D" "SHOW shared_buffers")" = 48MB ] || fail "--set shared_buffers not applied"
[ "$(q "$D" "SHOW application_name")" = psql ] || true   # client overrides; the quote must not break the file
[ "$(q "$D" "SELECT count(*) FROM pg_tablespace WHERE spcname IN ('fast','idx')")" = 2 ] ||
	fail "tablespaces not created"
[ "$(q "$D" "SELECT pg_tablespace_location(oid) FROM pg_tablespace WHERE spcname='fast'")" = "$T/ts_fast" ] ||
	fail "tablespace fast is not at $T/ts_fast"
[ -L "$D/pg_wal" ] && [ "$(readlink "$D/pg_wal")" = "$T/wal" ] || fail "pg_wal is not a link to $T/wal"
[ "$(stat -c %U "$D")" = postgres ] || fail "pgdata not owned by postgres"
ok "init with tablespaces, wal dir and settings"

"$PGLOAD" cluster init --pgdata "$D" >/dev/null 2>&1 && fail "init into a non-empty dir succeeded"
"$PGLOAD" cluster init --pgdata "$D" 2>&1 | grep -q "not empty" || fail "no 'not empty' message"
ok "refuses a non-empty pgdata"

"$PGLOAD" cluster stop --pgdata "$D" || fail "stop"
"$PGLOAD" cluster status --pgdata "$D" >/dev/null; [ $? = 3 ] || fail "status after stop is not 3"
"$PGLOAD" cluster start --pgdata "$D" >/dev/null || fail "start"
q "$D" "CREATE TABLE t(x int); INSERT INTO t VALUES (42)" >/dev/null
"$PGLOAD" cluster stop --immediate --pgdata "$D" || fail "stop --immediate"
"$PGLOAD" cluster status --pgdata "$D" >/dev/null; [ $? = 3 ] || fail "still running after an immediate stop"
"$PGLOAD" cluster start --pgdata "$D" >/dev/null || fail "start after a crash"
[ "$(q "$D" "SELECT x FROM t")" = 42 ] || fail "committed row lost in crash recovery"
grep -q "database system was interrupted\|not properly shut down" "$D/pgload_server.log" ||
	fail "the server log shows no crash recovery"
ok "stop, start, immediate stop and crash recovery"

"$PGLOAD" cluster destroy --pgdata "$D" || fail "destroy"
[ ! -e "$D" ] || fail "pgdata still there"
[ ! -e "$T/wal" ] || fail "the WAL dir pgload made is still there"
[ -d "$T/ts_fast" ] && [ -z "$(ls -A "$T/ts_fast")" ] || fail "tablespace dir not kept empty"
ok "destroy removes the cluster, keeps the tablespace dirs"

mkdir "$T/other" && touch "$T/other/PG_VERSION" "$T/other/keep"
"$PGLOAD" cluster destroy --pgdata "$T/other" 2>"$T/err" && fail "destroyed a non-pgload dir"
grep -q "not a cluster made by pgload" "$T/err" || fail "unclear refusal: $(cat "$T/err")"
[ -f "$T/other/keep" ] || fail "files removed from a non-pgload dir"
ok "destroy refuses a directory pgload did not make"

# A start that fails reports the server log's last lines.
"$PGLOAD" cluster init --pgdata "$T/bad" --set shared_buffers=lots >"$T/bad.out" 2>&1 &&
	fail "init with an invalid setting succeeded"
grep -q "last lines of" "$T/bad.out" && grep -q 'invalid value for parameter "shared_buffers"' "$T/bad.out" ||
	{ cat "$T/bad.out"; fail "failed start does not show the server log"; }
ok "failed start shows the server log"
