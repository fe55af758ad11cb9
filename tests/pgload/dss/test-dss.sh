#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test of the TPC-H-derived DSS workload (pgload dss) against a
# throwaway PostgreSQL 15 cluster: load at SF 0.01, row counts, referential
# integrity after `keys`, all 22 queries return rows, RF1/RF2, plan
# fingerprints stable across runs, dropping an index the plan uses changes
# the fingerprint, phase markers in the control file.
# Usage: test-dss.sh DSS_DRIVER DSS_DUMP     (exit 77 with the reason when
# not root or PostgreSQL 15 is missing)
set -u
set -o pipefail

DRIVER=$1
DUMP=$2
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
NAME=dss

say() { printf '%s: %s\n' "$NAME" "$*"; }
die() { printf '%s: FAIL: %s\n' "$NAME" "$*" >&2; exit 1; }
skip() { printf '%s: SKIP: %s\n' "$NAME" "$*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root (runs PostgreSQL as user postgres)"
for p in initdb pg_ctl psql; do
	[ -x "$PGBIN/$p" ] || skip "PostgreSQL 15 is not installed ($PGBIN/$p missing: apt-get install postgresql-15)"
done
id postgres >/dev/null 2>&1 || skip "no user postgres (install postgresql-15)"
[ -x "$DRIVER" ] && [ -x "$DUMP" ] || die "test programs missing: $DRIVER $DUMP"

TMP=$(mktemp -d /var/tmp/dutlab-dss.XXXXXX) || die "mktemp failed"
SOCK=$(mktemp -d /tmp/dutlab-dss-sock.XXXXXX) || die "mktemp failed"
chmod 755 "$TMP"
chown postgres: "$SOCK"
PGDATA=$TMP/data
cleanup() {
	if [ -f "$PGDATA/postmaster.pid" ]; then
		runuser -u postgres -- timeout 60 "$PGBIN/pg_ctl" -D "$PGDATA" -m immediate -w -t 30 stop >/dev/null 2>&1
	fi
	rm -rf "$TMP" "$SOCK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
	local p n=200
	while [ $n -gt 0 ]; do
		p=$((20000 + RANDOM % 30000))
		ss -Htan "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
		n=$((n - 1))
	done
	return 1
}
PORT=$(free_port) || die "no free TCP port"

mkdir -p "$PGDATA" && chown postgres: "$PGDATA" && chmod 700 "$PGDATA"
runuser -u postgres -- timeout 120 "$PGBIN/initdb" -D "$PGDATA" -A trust -U postgres \
	--no-instructions >"$TMP/initdb.log" 2>&1 || { cat "$TMP/initdb.log" >&2; die "initdb failed"; }
touch "$TMP/pg.log" && chown postgres: "$TMP/pg.log"
# fsync off: the test checks results, not durability, on a shared machine.
runuser -u postgres -- timeout 90 "$PGBIN/pg_ctl" -D "$PGDATA" -l "$TMP/pg.log" -w -t 60 start \
	-o "-p $PORT -k $SOCK -c listen_addresses='' -c fsync=off -c shared_buffers=64MB" >/dev/null \
	|| { tail -20 "$TMP/pg.log" >&2; die "PostgreSQL did not start"; }

CONN="host=$SOCK port=$PORT user=postgres dbname=postgres"
psql_q() { timeout 120 "$PGBIN/psql" -d "$CONN" -XAtq -v ON_ERROR_STOP=1 -c "$1"; }
dss() { timeout 150 "$DRIVER" -d "$CONN" -s 0.01 -j 2 --quiet "$@"; }

# ---- run 1: every phase, markers into a plain file standing in for dutfs' control ----
touch "$TMP/control"
dss --phases all --json "$TMP/r1.json" --dutfs-control "$TMP/control" --timeout 60s \
	|| die "pgload dss (all phases) failed"
"$DUMP" "$TMP/r1.json" >"$TMP/r1.txt" || die "result document does not parse"

for ph in load keys analyze queries rf; do
	grep -qx "phase $ph ok" "$TMP/r1.txt" || die "phase $ph missing or not ok: $(grep "phase $ph" "$TMP/r1.txt")"
	for w in start end; do
		grep -qx "mark dss/$ph $w" "$TMP/control" || die "no marker 'mark dss/$ph $w' in the control file"
	done
done
say "5 phases ok, 10 markers written"

# Row counts: the specification's cardinalities at SF 0.01 (lineitem: 1..7 per order).
declare -A expect=([region]=5 [nation]=25 [supplier]=100 [part]=2000 [partsupp]=8000
		   [customer]=1500 [orders]=15000)
for t in "${!expect[@]}"; do
	n=$(psql_q "select count(*) from $t") || die "count $t failed"
	[ "$n" = "${expect[$t]}" ] || die "$t has $n rows, expected ${expect[$t]}"
done
li=$(psql_q "select count(*) from lineitem")
[ "$li" -ge 58000 ] && [ "$li" -le 62000 ] || die "lineitem has $li rows, expected about 60000"
lo=$(psql_q "select min(c), max(c) from (select count(*) c from lineitem group by l_orderkey) s")
[ "$lo" = "1|7" ] || die "lines per order span $lo, expected 1|7"
# RF1 inserted 15 orders (0.1 %) with their lines; RF2 deleted as many rows.
rf1=$(awk '$1 == "step" && $2 == "rf" && $5 == "RF1" { print $4 }' "$TMP/r1.txt")
rf2=$(awk '$1 == "step" && $2 == "rf" && $5 == "RF2" { print $4 }' "$TMP/r1.txt")
[ -n "$rf1" ] && [ "$rf1" -ge $((15 + 15)) ] && [ "$rf1" -le $((15 + 15 * 7)) ] \
	|| die "RF1 wrote '$rf1' rows, expected 15 orders and 15..105 lines"
[ "$rf1" = "$rf2" ] || die "RF1 wrote $rf1 rows, RF2 deleted $rf2"
say "row counts as specified (lineitem $li); RF1 added $rf1 rows, RF2 removed them"

# Referential integrity: every foreign key exists and is validated, and an
# independent anti-join finds no orphan.
nfk=$(psql_q "select count(*) from pg_constraint where contype = 'f' and convalidated")
[ "$nfk" = 8 ] || die "$nfk validated foreign keys, expected 8"
orph=$(psql_q "select (select count(*) from lineitem l left join partsupp p on
	p.ps_partkey = l.l_partkey and p.ps_suppkey = l.l_suppkey where p.ps_partkey is null)
	+ (select count(*) from orders o left join customer c on c.c_custkey = o.o_custkey
	   where c.c_custkey is null)
	+ (select count(*) from lineitem l left join orders o on o.o_orderkey = l.l_orderkey
	   where o.o_orderkey is null)")
[ "$orph" = 0 ] || die "$orph orphan rows"
say "8 foreign keys validated, no orphans"

# All 22 queries ran and returned rows.
nq=$(awk '$1 == "query" && $4 == "ok" && $5 > 0' "$TMP/r1.txt" | wc -l)
[ "$nq" = 22 ] || { grep '^query' "$TMP/r1.txt" | cut -c1-80 >&2; die "$nq of 22 queries ok with rows"; }
say "22 queries returned rows"

# ---- --to-files: same bytes for 1 and 3 threads, and the same rows as loaded ----
mkdir -p "$TMP/f1" "$TMP/f3"
timeout 60 "$DRIVER" --to-files "$TMP/f1" -s 0.01 -j 1 --quiet || die "--to-files -j 1 failed"
timeout 60 "$DRIVER" --to-files "$TMP/f3" -s 0.01 -j 3 --quiet || die "--to-files -j 3 failed"
for t in region nation supplier part partsupp customer orders lineitem; do
	cmp -s "$TMP/f1/$t.tbl" "$TMP/f3/$t.tbl" || die "$t.tbl differs between 1 and 3 threads"
done
psql_q "create schema files; create table files.lineitem (like public.lineitem);
	create table files.supplier (like public.supplier)" || die "create schema files failed"
for t in lineitem supplier; do
	timeout 60 "$PGBIN/psql" -d "$CONN" -XAtq -v ON_ERROR_STOP=1 \
		-c "\\copy files.$t from '$TMP/f1/$t.tbl' (format csv, delimiter '|')" \
		|| die "COPY (FORMAT csv) of $t.tbl failed"
	d=$(psql_q "select count(*) from ((table public.$t except all table files.$t)
		union all (table files.$t except all table public.$t)) d")
	[ "$d" = 0 ] || die "$t.tbl and the loaded $t differ in $d rows"
done
say "--to-files: identical for 1 and 3 threads, loadable as CSV, same rows as COPY loaded"

# ---- run 2: queries only; plan fingerprints must be the same ----
dss --phases queries --json "$TMP/r2.json" || die "second query run failed"
"$DUMP" "$TMP/r2.json" >"$TMP/r2.txt" || die "second result does not parse"
diff <(awk '$1 == "query" { print $2, $6 }' "$TMP/r1.txt") \
     <(awk '$1 == "query" { print $2, $6 }' "$TMP/r2.txt") >&2 \
	|| die "plan fingerprints changed between two runs on the same data"
say "fingerprints stable across two runs"

# ---- dropping an index a plan uses changes that plan's fingerprint ----
idx=""
for cand in lineitem_partkey_suppkey_idx orders_custkey_idx partsupp_suppkey_idx \
	    lineitem_shipdate_idx orders_orderdate_idx customer_nationkey_idx \
	    supplier_nationkey_idx nation_regionkey_idx; do
	q=$(awk -v i="Index Name=$cand" '$1 == "query" && index($0, i) { print $2; exit }' "$TMP/r1.txt")
	if [ -n "$q" ]; then idx=$cand; break; fi
done
[ -n "$idx" ] || die "no plan uses a secondary index created by keys: $(grep -o 'Index Name=[a-z_]*' "$TMP/r1.txt" | sort -u | tr '\n' ' ')"
before=$(awk -v q="$q" '$1 == "query" && $2 == q { print $6 }' "$TMP/r1.txt")
psql_q "drop index $idx" || die "drop index $idx failed"
dss --phases queries --queries "$q" --json "$TMP/r3.json" || die "query run without $idx failed"
"$DUMP" "$TMP/r3.json" >"$TMP/r3.txt" || die "third result does not parse"
after=$(awk '$1 == "query" { print $6 }' "$TMP/r3.txt")
[ -n "$after" ] && [ "$after" != "$before" ] || die "Q$q fingerprint $before unchanged after dropping $idx"
grep -q "Index Name=$idx" "$TMP/r3.txt" && die "Q$q still names $idx after it was dropped"
say "Q$q used $idx: fingerprint $before -> $after after dropping it"

say "PASS"
