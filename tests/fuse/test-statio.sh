#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test (issue #17): the syscall view's per-relation reads are
# PostgreSQL's own block reads, exactly.
#
#     test-statio.sh [CASE...]      (default: every case)
#
# PostgreSQL 15 on a dutfs --view syscall mount with 1 MB of shared_buffers
# (so that blocks are really read), autovacuum off, a few MB of tables built
# with SQL.  For each case: stop the server, drop the backing files' page
# cache, start it, pg_stat_reset(), mark the trace, run the statement (under
# EXPLAIN ANALYZE, whose plan must show the scan the case is about), force
# the backend's statistics out (pg_stat_force_next_flush), read
# pg_statio_user_tables / pg_statio_user_indexes, mark the end.  Then for
# every table, toast table and index of the data set: the 8 KiB reads in the
# trace between the two markers, all forks of its relfilenode (main, _fsm,
# _vm: PostgreSQL counts a relation's FSM and VM block reads in its
# heap_blks_read / idx_blks_read) must equal the statio counter.
#
# Cases: seq (seq scan), index (index range scan), bitmap (bitmap heap scan,
# effective_io_concurrency 32: prefetch by posix_fadvise), parallel
# (parallel seq scan, 2 workers), vacuum (VACUUM of a table with dead
# tuples and an index), tiny (index lookup and VACUUM of 1-page tables), join
# (two tiny tables), toast (detoasting), analyze (ANALYZE: prefetch with
# maintenance_io_concurrency), insert (INSERT that extends the table and
# splits index pages).
#
# One difference is tolerated, exactly: a block PostgreSQL adds to a
# relation's main fork (ReadBuffer(P_NEW): heap extension, a new btree page)
# is counted in statio as a read but is a write, never a pread.  In the
# insert case the growth of each main fork (pg_relation_size before and
# after, in the same session) must be statio minus the trace, to the block;
# in every other case nothing is tolerated (docs/dutfs.md, "What the syscall
# view counts").
. "$(dirname "$0")/lib.sh"

DUT_TEST_NAME=statio
DUTLAB=${DUTLAB:-$DUT_BUILD_ROOT/tools/dutlab}
ALL_CASES="seq index bitmap parallel tiny join toast analyze vacuum insert"
CASES=${*:-$ALL_CASES}
for c in $CASES; do
	[[ " $ALL_CASES " == *" $c "* ]] || { echo "statio: unknown case $c (cases: $ALL_CASES)" >&2; exit 99; }
done

dut_need_root
dut_need_dutfs
dut_need_pg
[ -x "$DUTLAB" ] || dut_skip "dutlab is not built ($DUTLAB): ninja -C BUILD tools/dutlab"

dut_tmpdir
dut_mount "$T/backing" "$T/mnt" --view syscall --trace "$T/trace.dtr"
PGLOG=$T/postgres.log
pg_setup "$T/mnt/pgdata"
pg_initdb
# 1 MB = 128 buffers: every case reads far more than fits.  No autovacuum:
# its reads would land in whichever case it chose.  Seq scans start at
# block 0 (no synchronised scans).
PGOPTS="-c shared_buffers=1MB -c max_connections=20 -c autovacuum=off -c track_io_timing=on
	-c jit=off -c synchronize_seqscans=off -c max_parallel_workers_per_gather=0"
pg_start $PGOPTS

psql_f() { # FILE (readable by postgres): every statement its own transaction
	as_pg timeout 120 "$PGBIN/psql" -h "$PGSOCK" -p "$PGPORT" -d postgres -XAtq -v ON_ERROR_STOP=1 -f "$1"
}

mark() { printf 'mark %s' "$1" >"$T/mnt/.dutfs/control" || die "cannot write marker $1"; }

say "building the data set"
cat >"$T/setup.sql" <<'EOF'
CREATE TABLE big (id int NOT NULL, k int NOT NULL, pad text NOT NULL);
INSERT INTO big SELECT g, (g * 7919) % 40000, repeat(md5(g::text), 2) FROM generate_series(1, 40000) g;
CREATE INDEX big_k ON big (k);
CREATE TABLE tiny (id int PRIMARY KEY, v text);
INSERT INTO tiny VALUES (1, 'a'), (2, 'b'), (3, 'c');
CREATE TABLE tiny2 (id int PRIMARY KEY, tiny_id int NOT NULL);
INSERT INTO tiny2 SELECT g, g % 3 + 1 FROM generate_series(1, 5) g;
CREATE TABLE docs (id int PRIMARY KEY, body text NOT NULL);
ALTER TABLE docs ALTER body SET STORAGE EXTERNAL;
INSERT INTO docs SELECT g, (SELECT string_agg(md5(g::text || '.' || i::text), '') FROM generate_series(1, 250) i)
	FROM generate_series(1, 60) g;
VACUUM ANALYZE big, tiny, tiny2, docs;
-- dead tuples for the vacuum cases
DELETE FROM big WHERE id % 10 = 0;
DELETE FROM tiny WHERE id = 3;
CHECKPOINT;
EOF
chmod 644 "$T/setup.sql"
psql_f "$T/setup.sql" >/dev/null || die "building the data set failed"
DBOID=$(psql_q "SELECT oid FROM pg_database WHERE datname = 'postgres'") || die "no database oid"

# Every relation of the data set: name, statio view/column, relfilenode.
psql_q "
SELECT c.relname, 'heap', pg_relation_filenode(c.oid) FROM pg_class c
	WHERE c.relname IN ('big', 'tiny', 'tiny2', 'docs')
UNION ALL
SELECT c.relname, 'toast', pg_relation_filenode(c.reltoastrelid) FROM pg_class c
	WHERE c.relname IN ('big', 'tiny', 'tiny2', 'docs') AND c.reltoastrelid <> 0
UNION ALL
SELECT c.relname, 'tidx', pg_relation_filenode(i.indexrelid) FROM pg_class c
	JOIN pg_index i ON i.indrelid = c.reltoastrelid WHERE c.relname IN ('big', 'tiny', 'tiny2', 'docs')
UNION ALL
SELECT ic.relname, 'idx', pg_relation_filenode(ic.oid) FROM pg_index i
	JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
	WHERE c.relname IN ('big', 'tiny', 'tiny2', 'docs')
ORDER BY 1, 2" | tr '|' ' ' >"$T/rels" || die "cannot list the relations"
[ "$(wc -l <"$T/rels")" -ge 12 ] || { cat "$T/rels"; die "expected at least 12 relations (4 tables, their toast tables and indexes, 5 indexes)"; }

# The statio counters of every relation in "$T/rels": lines "NAME KIND BLOCKS".
STATIO_SQL="
SELECT relname, 'heap', heap_blks_read FROM pg_statio_user_tables
UNION ALL SELECT relname, 'toast', toast_blks_read FROM pg_statio_user_tables WHERE toast_blks_read IS NOT NULL
UNION ALL SELECT relname, 'tidx', tidx_blks_read FROM pg_statio_user_tables WHERE tidx_blks_read IS NOT NULL
UNION ALL SELECT indexrelname, 'idx', idx_blks_read FROM pg_statio_user_indexes
ORDER BY 1, 2;"

# drop_cache: the backing files leave the page cache (dd's documented
# "drop cache for the whole file" idiom), so the reads are cold reads.
drop_cache() {
	local f
	for f in "$T/backing/pgdata/base/$DBOID"/*; do
		[ -f "$f" ] && dd of="$f" oflag=nocache conv=notrunc,fdatasync count=0 status=none 2>/dev/null
	done
	return 0
}

case_sql() { # CASE -> the statements; the EXPLAIN output must match case_plan
	case $1 in
	seq) echo "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT count(*), sum(length(pad)) FROM big;" ;;
	index) echo "SET enable_bitmapscan = off; SET enable_seqscan = off;
		EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT sum(length(pad)) FROM big WHERE k BETWEEN 2000 AND 6000;" ;;
	bitmap) echo "SET enable_indexscan = off; SET enable_seqscan = off; SET effective_io_concurrency = 32;
		EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT sum(length(pad)) FROM big WHERE k BETWEEN 2000 AND 6000;" ;;
	parallel) echo "SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
		SET min_parallel_table_scan_size = 0;
		EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT count(*), sum(length(pad)) FROM big;" ;;
	vacuum) echo "VACUUM (VERBOSE) big;" ;;
	tiny) echo "SET enable_seqscan = off; SET enable_bitmapscan = off;
		EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT v FROM tiny WHERE id = 2;
		VACUUM (VERBOSE) tiny;" ;;
	join) echo "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT count(*) FROM tiny2 JOIN tiny ON tiny.id = tiny2.tiny_id;" ;;
	toast) echo "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT sum(length(md5(body))) FROM docs;" ;;
	analyze) echo "SET maintenance_io_concurrency = 32; ANALYZE big;" ;;
	insert) echo "SELECT 'size', relname, pg_relation_size(oid, 'main') / 8192 FROM pg_class WHERE relname IN ('big', 'big_k');
		INSERT INTO big SELECT g, (g * 7919) % 40000, repeat(md5(g::text), 2) FROM generate_series(40001, 46000) g;
		SELECT 'size', relname, pg_relation_size(oid, 'main') / 8192 FROM pg_class WHERE relname IN ('big', 'big_k');" ;;
	*) die "unknown case $1 (cases: $ALL_CASES)" ;;
	esac
}

case_plan() { # CASE -> a regex the statement's output must match (the scan really ran)
	case $1 in
	seq) echo "Seq Scan on big" ;;
	index) echo "Index Scan using big_k on big" ;;
	bitmap) echo "Bitmap Heap Scan on big" ;;
	parallel) echo "Workers Launched: 2" ;;
	tiny) echo "Index Scan using tiny_pkey on tiny" ;;
	join) echo "Join" ;;
	toast) echo "Seq Scan on docs" ;;
	*) echo "" ;;
	esac
}

# trace_counts LABEL: lines "RELFILENODE FORK BLOCKS" of the 8 KiB reads of
# the phase LABEL in this database's files; dies on a read that is not one block.
trace_counts() {
	"$DUTLAB" export "$T/trace.dtr" --format csv --ops read --phase "$1" -o "$T/phase.csv" 2>"$T/export.err" \
		|| { cat "$T/export.err" >&2; die "dutlab export --phase $1 failed"; }
	awk -F, -v pre="pgdata/base/$DBOID/" '
		NR == 1 { next }
		index($5, pre) == 1 {
			f = substr($5, length(pre) + 1)
			if (f !~ /^[0-9]+(_fsm|_vm|_init)?(\.[0-9]+)?$/) next
			if ($9 != 8192 || $10 != 8192) { printf "odd read %s off %s len %s result %s\n", $5, $8, $9, $10 > "/dev/stderr"; bad = 1 }
			rel = f; sub(/[_.].*/, "", rel)
			fork = "main"; if (f ~ /_fsm/) fork = "fsm"; else if (f ~ /_vm/) fork = "vm"
			n[rel " " fork]++
		}
		END { for (k in n) print k, n[k]; exit bad }' "$T/phase.csv"
}

FAILS=0
declare -A SUMMARY
for c in $CASES; do
	sql=$(case_sql "$c")
	printf '%s\nSELECT pg_stat_force_next_flush();\nSELECT 1;\n' "$sql" >"$T/case.sql"
	printf '%s\n' "$STATIO_SQL" >"$T/statio.sql"
	chmod 644 "$T/case.sql" "$T/statio.sql"
	pg_stop fast || die "pg_ctl stop failed before case $c"
	drop_cache
	pg_start $PGOPTS
	psql_q "SELECT pg_stat_reset()" >/dev/null || die "pg_stat_reset failed"
	mark "$c"
	psql_f "$T/case.sql" >"$T/case-$c.out" 2>&1 || { cat "$T/case-$c.out" >&2; die "case $c: the statement failed"; }
	psql_f "$T/statio.sql" | tr '|' ' ' >"$T/statio-$c" || die "case $c: reading pg_statio failed"
	mark "$c-end"
	plan=$(case_plan "$c")
	if [ -n "$plan" ] && ! grep -q "$plan" "$T/case-$c.out"; then
		cat "$T/case-$c.out" >&2
		die "case $c: the plan does not show '$plan' (the case would not test what it says)"
	fi
	SUMMARY[$c]=""
done

pg_stop fast || die "pg_ctl stop failed"
dut_umount "$T/mnt" || die "dutfs needed a forced unmount"

for c in $CASES; do
	trace_counts "$c" >"$T/trace-$c" || die "case $c: the trace has reads that are not single 8 KiB blocks"
	# main-fork blocks added by the statement ("size|NAME|BLOCKS" before and after)
	awk -F'|' '$1 == "size" { if ($2 in b) print $2, $3 - b[$2]; else b[$2] = $3 }' "$T/case-$c.out" >"$T/ext-$c"
	line=""
	while read -r name kind rfn; do
		want=$(awk -v n="$name" -v k="$kind" '$1 == n && $2 == k { print $3 }' "$T/statio-$c")
		want=${want:-0}
		ext=0
		[ "$kind" = heap ] || [ "$kind" = idx ] && ext=$(awk -v n="$name" '$1 == n { print $2 }' "$T/ext-$c")
		ext=${ext:-0}
		read -r m f v <<<"$(awk -v r="$rfn" '$1 == r { a[$2] = $3 } END { print a["main"] + 0, a["fsm"] + 0, a["vm"] + 0 }' "$T/trace-$c")"
		got=$((m + f + v))
		[ "$want" = 0 ] && [ "$got" = 0 ] && continue
		detail="$name/$kind statio $want trace $got"
		[ "$f" != 0 ] || [ "$v" != 0 ] && detail="$detail (main $m fsm $f vm $v)"
		[ "$ext" != 0 ] && detail="$detail + $ext extended (counted as read, no pread)"
		if [ "$want" != $((got + ext)) ]; then
			detail="$detail MISMATCH"
			FAILS=$((FAILS + 1))
		fi
		line="$line; $detail"
	done <"$T/rels"
	say "$c: ${line#; }"
done
[ "$FAILS" -eq 0 ] || die "$FAILS relation(s) whose trace reads differ from pg_statio (see above)"
say "PASS"
