#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the dutlab results integration tests, after tests/tools/run/it-lib.sh:
# the test's own throwaway PostgreSQL 15 cluster under $WORK/pg (a unix
# socket, a free port), stopped first by it-lib.sh's cleanup trap on any exit.
# Sets port and DB (a conninfo); q SQL runs a statement there.

it_cleanup_first() {
	[ -f "$WORK/pg/data/postmaster.pid" ] &&
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/pg/data" -m immediate stop >/dev/null 2>&1
}

mkdir -p "$WORK/pg/sock" && chown -R postgres "$WORK/pg"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
runuser -u postgres -- "$PGBIN/initdb" -D "$WORK/pg/data" -A trust -U postgres >/dev/null || fail "initdb"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" -w \
	-o "-k $WORK/pg/sock -p $port -c listen_addresses='' -c shared_buffers=16MB" start >/dev/null ||
	fail "the cluster did not start: $(tail -3 "$WORK/pg/log")"
# shellcheck disable=SC2034  # used by the tests that source this
DB="host=$WORK/pg/sock port=$port user=postgres dbname=postgres"
q() { "$PGBIN/psql" "$DB" -XAtq -v ON_ERROR_STOP=1 -c "$1"; }

# The tiny experiment both tests run: an image, ext4, identify, a scale-1 load, 4 s of OLTP.
results_tiny_ini() { # FILE
	cat >"$1" <<INI
[experiment]
name = results-tiny
[target disk]
type = image
path = disk.img
size = 1536M
[matrix]
filesystem = ext4-ordered
[postgres]
version = 15
set = shared_buffers=16MB
[step id]
type = identify
[step load]
type = oltp-init
scale = 1
[step rw]
type = oltp-run
clients = 2
duration = 4s
INI
}
