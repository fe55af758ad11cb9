#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input gets a clear message and a failing exit status: wrong conninfo,
# server down before and during a run, scale 0, unknown script, tablespace
# directories that do not exist or are not empty, client threads that cannot
# be created.
. "$(dirname "$0")/it_lib.sh"

expect_fail() { # name, message-regex, command...
	name=$1; re=$2; shift 2
	"$@" >"$T/out" 2>&1; rc=$?
	[ $rc -ne 0 ] || fail "$name: exit 0"
	grep -Eq "$re" "$T/out" || { cat "$T/out"; fail "$name: message does not match /$re/"; }
	ok "$name (exit $rc)"
}

expect_fail "wrong conninfo" "cannot connect to the server" \
	"$PGLOAD" run -d "host=$T port=1 connect_timeout=3" -t 1
expect_fail "not a pgload cluster" "not a cluster made by pgload" "$PGLOAD" run --pgdata "$T" -t 1
expect_fail "scale 0" "scale must be at least 1" "$PGLOAD" init -d "host=$T" -s 0
expect_fail "negative scale" "scale must be at least 1" "$PGLOAD" init -d "host=$T" -s -5
expect_fail "unknown script" 'unknown script "tpcc"' "$PGLOAD" run -d "host=$T" -b tpcc
expect_fail "bad weight" "bad weight" "$PGLOAD" run -d "host=$T" -b tpcb-like@x
expect_fail "pipeline with simple protocol" "needs -M extended" "$PGLOAD" run -d "host=$T" --pipeline
expect_fail "missing tablespace dir" "create it first" \
	"$PGLOAD" cluster init --pgdata "$T/d1" --tablespace ts="$T/nope"
[ ! -e "$T/d1/PG_VERSION" ] || fail "a cluster was made despite the bad tablespace"
mkdir "$T/full" && touch "$T/full/x"
expect_fail "non-empty tablespace dir" "is not empty" \
	"$PGLOAD" cluster init --pgdata "$T/d2" --tablespace ts="$T/full"
expect_fail "bad tablespace spec" "expected NAME=DIR" "$PGLOAD" cluster init --pgdata "$T/d3" --tablespace "$T/x"

D=$T/data
"$PGLOAD" cluster init --pgdata "$D" >/dev/null || fail "cluster init"
expect_fail "run before init" "run pgload init first" "$PGLOAD" run --pgdata "$D" -t 1
"$PGLOAD" init --pgdata "$D" -s 1 -q || fail "pgload init"
expect_fail "unknown tablespace" 'tablespace "nosuch" does not exist' \
	"$PGLOAD" init --pgdata "$D" -s 1 --tables-on nosuch
# Client threads that cannot all be created (address space for 64 thread
# stacks of 8 MiB refused): a clear error, the started threads end, no hang.
expect_fail "threads not created" "cannot start client thread [0-9]+ of 64" \
	sh -c 'ulimit -v 300000 && exec timeout 60 "$0" run --pgdata "$1" -c 64 -j 64 -T 2 -S' "$PGLOAD" "$D"

# Server shut down (fast) in the middle of a run.
"$PGLOAD" run --pgdata "$D" -c 2 -T 60 >"$T/run.out" 2>&1 &
RUN=$!
BG_PIDS=$RUN
sleep 3
"$PGLOAD" cluster stop --pgdata "$D" || fail "stop"
wait "$RUN"; rc=$?
BG_PIDS=""
[ $rc = 2 ] || { cat "$T/run.out"; fail "server down mid-run: exit $rc, want 2"; }
grep -q "clients aborted: 2 of 2" "$T/run.out" && grep -q "terminating connection\|server closed" "$T/run.out" ||
	{ cat "$T/run.out"; fail "server down mid-run: no clear report"; }
ok "server down mid-run: partial results, exit 2"
expect_fail "server down" "cannot connect to the server" "$PGLOAD" run --pgdata "$D" -t 1
