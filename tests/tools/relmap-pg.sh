#!/bin/sh
# Integration: tools/relmap.sh against a throwaway PostgreSQL 15 cluster
# (private socket dir, free port), then dutlab report reads the map.
# Needs root (the server runs as user postgres) and PostgreSQL 15.
set -eu
src=${DUT_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${DUT_BUILD_ROOT:-}
pgbin=/usr/lib/postgresql/15/bin
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (runs PostgreSQL as user postgres)"; exit 77; fi
if [ ! -x "$pgbin/initdb" ]; then echo "SKIP: PostgreSQL 15 is not installed ($pgbin/initdb)"; exit 77; fi
if ! id postgres >/dev/null 2>&1; then echo "SKIP: no user postgres"; exit 77; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/dutrelmap.XXXXXX")
chmod 755 "$work"
cleanup() {
	runuser -u postgres -- "$pgbin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
mkdir "$work/sock"
chown postgres "$work" "$work/sock"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

runuser -u postgres -- "$pgbin/initdb" -D "$work/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$pgbin/pg_ctl" -D "$work/data" -l "$work/log" -w \
	-o "-k $work/sock -p $port -c listen_addresses='' -c shared_buffers=16MB" start >/dev/null
conn="-h $work/sock -p $port -U postgres"
psql -X -q -v ON_ERROR_STOP=1 $conn -d postgres <<'SQL'
CREATE DATABASE second;
CREATE TABLE accounts (aid int PRIMARY KEY, filler text);
INSERT INTO accounts SELECT g, repeat('x', 10) FROM generate_series(1, 100) g;
TRUNCATE accounts; -- new relfilenode: the map must use pg_relation_filenode()
SQL
psql -X -q -v ON_ERROR_STOP=1 $conn -d second -c "CREATE TABLE items (id int); CREATE INDEX items_id ON items (id);"
# what the map must say
rfn=$(psql -X -A -t $conn -d postgres -c "SELECT pg_relation_filenode('accounts')")
dboid=$(psql -X -A -t $conn -d postgres -c "SELECT oid FROM pg_database WHERE datname = 'postgres'")
pgdb_rfn=$(psql -X -A -t $conn -d postgres -c "SELECT pg_relation_filenode('pg_database')")

"$src/tools/relmap.sh" -o "$work/relmap.json" $conn
python3 - "$work/relmap.json" "$rfn" "$dboid" "$pgdb_rfn" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
rfn, dboid, pgdb_rfn = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
assert m["schema"] == "dutlab-relmap" and m["schema_version"] == 1, m["schema"]
assert m["block_size"] == 8192
rels = m["relations"]
def find(name, db=None):
    hits = [r for r in rels if r["name"] == name and (db is None or r["database"] == db)]
    assert len(hits) == 1, (name, db, hits)
    return hits[0]
acc = find("accounts", "postgres")
assert acc["relfilenode"] == rfn and acc["db_oid"] == dboid and acc["tablespace_oid"] == 1663, acc
assert acc["kind"] == "table" and acc["schema"] == "public", acc
pk = find("accounts_pkey")
assert pk["kind"] == "index" and pk["parent"] == "public.accounts", pk
toast = [r for r in rels if r["kind"] == "toast" and r["parent"] == "public.accounts"]
assert len(toast) == 1, toast
tidx = [r for r in rels if r["kind"] == "toast_index" and r["parent"] == "public.accounts"]
assert len(tidx) == 1, tidx
pgdb = find("pg_database")  # shared catalog: once, pg_global, db 0, mapped relfilenode
assert pgdb["db_oid"] == 0 and pgdb["tablespace_oid"] == 1664 and pgdb["relfilenode"] == pgdb_rfn, pgdb
find("pg_class", "second")
assert find("items_id", "second")["parent"] == "public.items"
roles = {p["role"] for p in m["processes"]}
assert "checkpointer" in roles and "client backend" in roles, roles
print("relmap ok: %d relations, roles %s" % (len(rels), sorted(roles)))
PY
# dutlab reads it
if [ -n "$build" ] && [ -x "$build/tools/dutlab" ] && [ -x "$build/tests/tools/mktrace" ]; then
	"$build/tests/tools/mktrace" "$work/t.dtr"
	"$build/tools/dutlab" report "$work/t.dtr" --relmap "$work/relmap.json" --by relation > "$work/report.txt"
	grep -q "relmap:     $work/relmap.json" "$work/report.txt"
fi
echo PASS
