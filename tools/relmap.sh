#!/bin/sh
# relmap.sh: write the relation map (dutlab-relmap JSON, docs/relmap-format.md)
# of a running PostgreSQL server: every relation with storage in every
# database that accepts connections, keyed by (tablespace, database,
# relfilenode) from pg_relation_filenode(), plus the server's processes
# (pg_stat_activity.backend_type).
#
# usage: relmap.sh [-o FILE] [PSQL_CONNECTION_OPTIONS...]
#   e.g. relmap.sh -o relmap.json -h /tmp/pgsock -p 5433 -U postgres
#   (do not pass -d/--dbname: every database is visited)
set -eu

out=-
if [ "${1:-}" = "-o" ]; then
	[ $# -ge 2 ] || { echo "relmap.sh: -o needs a FILE" >&2; exit 2; }
	out=$2
	shift 2
fi
case "${1:-}" in
-h|--help) if [ $# -eq 1 ]; then sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0; fi ;;
esac
command -v psql >/dev/null 2>&1 || { echo "relmap.sh: psql not found (apt-get install postgresql-client)" >&2; exit 1; }

q() { # q DB SQL: one unaligned, tuples-only result
	db=$1; shift
	PGDATABASE=$db psql -X -q -A -t -v ON_ERROR_STOP=1 "$@" -c "$SQL"
}

SQL="SELECT datname FROM pg_database WHERE datallowconn ORDER BY oid"
dbs=$(q postgres "$@") || { echo "relmap.sh: cannot list the databases (check the connection options: $*)" >&2; exit 1; }
SQL="SHOW block_size"
block_size=$(q postgres "$@")

# Shared catalogs (db_oid 0, pg_global) are listed once, from the first database.
# The kind column says what lib/relmap.c (relmap_kind_of_relkind) says of each
# relkind, as pgload's maps do: the test tools_relmap_kinds reads the CASE
# below (one "WHEN c.relkind = 'X' [AND n.nspname = 'S'] THEN 'KIND'" a line,
# first match wins) and compares it with lib for every relkind.
rels=""
shared=true
for db in $dbs; do
	SQL="
WITH d AS (SELECT oid, datname, dattablespace FROM pg_database WHERE datname = current_database()),
r AS (
  SELECT c.oid, c.relname, c.relkind, c.relisshared, n.nspname,
         pg_relation_filenode(c.oid) AS rfn,
         CASE WHEN c.relisshared THEN 1664 ELSE COALESCE(NULLIF(c.reltablespace, 0), d.dattablespace) END AS ts,
         CASE WHEN c.relisshared THEN 0 ELSE d.oid END AS db_oid,
         CASE WHEN c.relkind = 'i' AND n.nspname = 'pg_toast' THEN 'toast_index'
              WHEN c.relkind = 'r' THEN 'table'
              WHEN c.relkind = 'i' THEN 'index'
              WHEN c.relkind = 't' THEN 'toast'
              WHEN c.relkind = 'S' THEN 'sequence'
              WHEN c.relkind = 'm' THEN 'matview'
              ELSE 'other' END AS kind,
         COALESCE((SELECT tn.nspname || '.' || t.relname FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
                     JOIN pg_namespace tn ON tn.oid = t.relnamespace
                    WHERE i.indexrelid = c.oid AND c.relkind IN ('i', 'I') AND n.nspname <> 'pg_toast'),
                  (SELECT on_.nspname || '.' || o.relname FROM pg_class o JOIN pg_namespace on_ ON on_.oid = o.relnamespace
                    WHERE o.reltoastrelid = c.oid AND c.relkind = 't'),
                  (SELECT on_.nspname || '.' || o.relname FROM pg_index i JOIN pg_class o ON o.reltoastrelid = i.indrelid
                     JOIN pg_namespace on_ ON on_.oid = o.relnamespace
                    WHERE i.indexrelid = c.oid AND n.nspname = 'pg_toast')) AS parent
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace CROSS JOIN d
   WHERE pg_relation_filenode(c.oid) IS NOT NULL)
SELECT string_agg(json_build_object(
         'db_oid', r.db_oid::bigint, 'database', CASE WHEN r.relisshared THEN '' ELSE d.datname END,
         'tablespace_oid', r.ts::bigint, 'tablespace', ts.spcname, 'relfilenode', r.rfn::bigint, 'oid', r.oid::bigint,
         'schema', r.nspname, 'name', r.relname, 'kind', r.kind, 'parent', r.parent)::text, E',\n    ' ORDER BY r.oid)
  FROM r CROSS JOIN d LEFT JOIN pg_tablespace ts ON ts.oid = r.ts
 WHERE $shared OR NOT r.relisshared"
	part=$(q "$db" "$@") || { echo "relmap.sh: cannot read pg_class of database $db" >&2; exit 1; }
	shared=false
	[ -n "$part" ] || continue
	rels="${rels:+$rels,
    }$part"
done

SQL="SELECT string_agg(json_build_object('pid', pid, 'role', COALESCE(backend_type, 'unknown'))::text, E',\n    ' ORDER BY pid) FROM pg_stat_activity"
procs=$(q postgres "$@")

doc=$(printf '{\n  "schema": "dutlab-relmap", "schema_version": 1,\n  "captured_at": "%s",\n  "block_size": %s,\n  "relations": [\n    %s\n  ],\n  "processes": [\n    %s\n  ]\n}\n' \
	"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$block_size" "$rels" "$procs")
if [ "$out" = - ]; then
	printf '%s\n' "$doc"
elif [ -e "$out" ] && [ ! -f "$out" ]; then
	# Not a regular file (/dev/null, a fifo): write into it; a rename would replace it.
	printf '%s\n' "$doc" > "$out"
else
	tmp="$out.tmp.$$"
	printf '%s\n' "$doc" > "$tmp" && mv "$tmp" "$out"
fi
