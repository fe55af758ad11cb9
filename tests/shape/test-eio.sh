#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An EIO injected on reads of one table's heap file reaches the client, and
# only that table: PostgreSQL 15 on dutfs in the syscall view (every read
# the server issues reaches the daemon).
#
# The cluster starts with rules that inject nothing.  Two tables, victim
# and bystander; the rules file is rewritten with an error fault
# (errno = EIO) on reads whose path is the victim's main fork
# (pg_relation_filepath), and reloaded through the control file; the server
# restarts so that shared_buffers is empty.  Then:
#   - SELECT from victim fails with "Input/output error" naming the file;
#   - the server stays up: SELECT 1 and a SELECT from bystander work;
#   - stats.json counts the fault as fired.
. "$(dirname "$0")/lib-shape.sh"
DUT_TEST_NAME=shape-pg-heap-eio

shape_need_dutfs
shape_need_tool "$PGLOAD"
dut_need_pg
dut_need_prog jq jq

dut_tmpdir
MNT=$T/mnt
D=$MNT/pgdata
cat >"$T/rules.ini" <<EOF
; nothing yet: a rule that names a fault that never fires
[fault never]
type = error
errno = EIO
nth = 1000000000

[rule placeholder]
path = no-such-dir/*
fault = never
EOF
pgl() { timeout 180 "$PGLOAD" "$@"; }
conninfo() { pgl cluster status --pgdata "$D" | sed -n 's/^conninfo: //p'; }
q() { timeout 60 "$PGBIN/psql" -X -Atq -v ON_ERROR_STOP=1 "$(conninfo)" -c "$1"; }
stop_server() {
	local pid
	pid=$(pgl cluster status --pgdata "$D" 2>/dev/null | sed -n 's/^running (pid \([0-9]*\)).*/\1/p')
	[ -n "$pid" ] || return 0
	pgl cluster stop --immediate --pgdata "$D" >/dev/null 2>&1
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid" $(pgrep -P "$pid") 2>/dev/null
		dut_wait_pid "$pid" 10
	fi
	return 0
}

dut_mount "$T/backing" "$MNT" --view syscall --shape "$T/rules.ini"
dut_defer stop_server
pgl cluster init --pgdata "$D" >"$T/init.log" 2>&1 || { cat "$T/init.log"; die "pgload cluster init on dutfs failed"; }
sock=$(conninfo | sed -n 's/.*host=\([^ ]*\).*/\1/p')
case $sock in /tmp/pgload-*) dut_defer "rm -rf '$sock'" ;; esac
q "CREATE TABLE victim AS SELECT g AS id, repeat('v', 100) AS pad FROM generate_series(1, 5000) g;
   CREATE TABLE bystander AS SELECT g AS id FROM generate_series(1, 5000) g;
   CHECKPOINT" || die "creating the tables failed"
rel=$(q "SELECT pg_relation_filepath('victim')") || die "pg_relation_filepath failed"
[[ $rel =~ ^base/[0-9]+/[0-9]+$ ]] || die "unexpected pg_relation_filepath: $rel"
say "victim's heap file: pgdata/$rel"

cat >"$T/rules.ini" <<EOF
[fault eio]
type = error
errno = EIO

[rule victim-heap-reads]
path = pgdata/$rel
op = read
fault = eio
EOF
shape_ctl "$MNT" reload
pgl cluster stop --pgdata "$D" >/dev/null || die "stop failed"
pgl cluster start --pgdata "$D" >/dev/null || die "restart failed"

if out=$(q "SELECT count(*) FROM victim" 2>&1); then
	die "SELECT from victim succeeded ($out) with every read of $rel failing"
fi
say "SELECT from victim: $out"
case $out in
*"$rel"*"Input/output error"*) ;;
*) die "the error does not name $rel with \"Input/output error\": $out" ;;
esac
one=$(q "SELECT 1") || die "the server did not survive the read error: SELECT 1 failed"
[ "$one" = 1 ] || die "SELECT 1 returned $one"
b=$(q "SELECT count(*) FROM bystander") || die "reading bystander failed too"
[ "$b" = 5000 ] || die "bystander has $b rows, want 5000"
say "the server is up: SELECT 1 = $one, bystander has $b rows"
fired=$(jq -r '.shape.faults[] | select(.name == "eio") | .fired' "$MNT/.dutfs/stats.json")
[ -n "$fired" ] && [ "$fired" -ge 1 ] || die "stats.json: fault eio fired ${fired:-?} times"
say "stats.json: fault eio fired $fired times"
say "PASS"
