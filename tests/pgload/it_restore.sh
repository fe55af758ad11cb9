#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pgload restore: dump a generated OLTP (scale 2) and DSS (SF 0.01) database
# from one cluster, restore each into another with pg_restore -j 2, and check
# the restored database against the source itself (not only against pgload's
# own sidecar): row count per table, every constraint (pg_constraint with its
# definition) and every index (pg_indexes).  Markers restore/<phase> go to a
# plain file standing in for the dutfs control file.  Bad input: a missing
# dump, a wrong conninfo, an existing target database (refused unless --clean).
. "$(dirname "$0")/it_lib.sh"

"$PGLOAD" cluster init --pgdata "$T/src" --set fsync=off >/dev/null || fail "cluster init src"
"$PGLOAD" cluster init --pgdata "$T/dst" --set fsync=off >/dev/null || fail "cluster init dst"

# catalog DB PGDATA: the facts that must survive, one per line, sorted
catalog() {
	psql -X -At -v ON_ERROR_STOP=1 "$(conninfo "$2") dbname=$1" <<'EOF' | sort
SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
  FROM pg_constraint WHERE connamespace = 'public'::regnamespace;
SELECT 'index ' || indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = 'public';
SELECT 'table ' || c.relname || ' ' || (xpath('/row/n/text()',
         query_to_xml(format('SELECT count(*) AS n FROM public.%I', c.relname), false, true, '')))[1]::text
  FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r';
EOF
}

check_same() { # kind source-db target-db
	catalog "$2" "$T/src" >"$T/$1.src" || fail "$1: reading the source catalog"
	catalog "$3" "$T/dst" >"$T/$1.dst" || fail "$1: reading the restored catalog"
	[ -s "$T/$1.src" ] || fail "$1: the source has nothing in it"
	diff -u "$T/$1.src" "$T/$1.dst" || fail "$1: restored database differs from the source"
	ok "$1: $(grep -c '^table ' "$T/$1.src") tables, $(grep -c '^constraint ' "$T/$1.src") constraints, $(grep -c '^index ' "$T/$1.src") indexes identical to the source"
}

for spec in oltp:2 dss:0.01; do
	kind=${spec%%:*}
	"$PGLOAD" restore dump --generate "$spec" --pgdata "$T/src" --out "$T/$kind.dump" >"$T/$kind.dump.out" 2>&1 ||
		{ cat "$T/$kind.dump.out"; fail "$kind: restore dump"; }
	[ -s "$T/$kind.dump" ] && [ -s "$T/$kind.dump.json" ] || fail "$kind: no dump or sidecar"
	: >"$T/$kind.control"
	"$PGLOAD" restore run --dump "$T/$kind.dump" --pgdata "$T/dst" -j 2 --dbname "r_$kind" \
		--json "$T/$kind.json" --dutfs-control "$T/$kind.control" >"$T/$kind.out" 2>&1 ||
		{ cat "$T/$kind.out"; fail "$kind: restore run"; }
	cat "$T/$kind.out"
	grep -q "identical to the source" "$T/$kind.out" || fail "$kind: pgload's own check did not pass"
	check_same "$kind" "pgload_ref_$kind" "r_$kind"
	for ph in pre-data data constraints; do
		for w in start end; do
			grep -qx "mark restore/$ph $w" "$T/$kind.control" || fail "$kind: no marker restore/$ph $w"
		done
	done
	# The result document has one phase per step, with wall and CPU times.
	python3 - "$T/$kind.json" "$kind" <<'EOF' || fail "$kind: result document"
import json, sys
d = json.load(open(sys.argv[1]))
names = [p["name"] for p in d["phases"]]
want = ["pre-data", "data", "constraints", "post-data-other", "total"]
if sys.argv[2] == "dss":
    want[2:2] = ["indexes"]
    want[4:4] = ["foreign-keys"]
assert names == want, names
for p in d["phases"]:
    assert p["duration_ns"] > 0, p
    assert "restore_cpu_s" in p["metrics"] and "server_cpu_s" in p["metrics"], p
data = d["phases"][1]["metrics"]
assert data["rows_per_s"]["value"] > 0 and d["config"]["rows"] > 0 and d["config"]["differences"] == 0
# what each phase waited on: PSI shares (this host has /proc/pressure), the
# run queue, the server's I/O, and the verdict with its reason
import os
psi = os.path.exists("/proc/pressure/io")
for p in d["phases"]:
    m, x = p["metrics"], p["extra"]
    assert x["verdict"] in ("cpu-bound", "waiting", "unknown"), x
    assert x["bound"] in ("cpu-bound", "cpu-starved", "io-bound", "lock-or-other-wait", "unknown"), x
    assert x["bound_reason"], x
    for k in ("psi_cpu_some", "psi_io_some", "psi_io_full"):
        assert (k in m) == psi, (k, p)
        assert not psi or 0 <= m[k]["value"] <= 1, (k, p)
    assert x["psi_known"] == psi, x
    assert "runq_mean" in m and "blocked_mean" in m, p
    assert "server_read_bytes" in m and "server_write_bytes" in m and "server_wchar_bytes" in m, p
    if x["bound"] != "unknown":
        assert ("cores busy %.2f" % m["cores_busy"]["value"]) in x["bound_reason"], x
# the data phase wrote the rows: the server's write(2) bytes at least the dump's size
assert data["server_wchar_bytes"]["value"] >= d["config"]["dump_bytes"], data
EOF
	ok "$kind: markers and result document"
done

expect_fail() { # name, message-regex, command...
	name=$1; re=$2; shift 2
	"$@" >"$T/out" 2>&1; rc=$?
	[ $rc -ne 0 ] || fail "$name: exit 0"
	grep -Eq "$re" "$T/out" || { cat "$T/out"; fail "$name: message does not match /$re/"; }
	ok "$name (exit $rc)"
}
expect_fail "missing dump" "make one with pgload restore dump" \
	"$PGLOAD" restore run --dump "$T/nope.dump" --pgdata "$T/dst"
expect_fail "wrong conninfo" "cannot connect to the server" \
	"$PGLOAD" restore run --dump "$T/oltp.dump" -d "host=$T port=1 connect_timeout=3"
expect_fail "existing target database" "exists on the target; give --clean" \
	"$PGLOAD" restore run --dump "$T/oltp.dump" --pgdata "$T/dst" --dbname r_oltp
psql -X -q "$(conninfo "$T/dst") dbname=r_oltp" -c "DELETE FROM pgbench_accounts WHERE aid <= 10" ||
	fail "changing r_oltp"
# ... on a "kernel without PSI" (PGLOAD_PRESSURE_DIR: an empty directory
# for /proc/pressure): the pressure is unknown and said so, never 0
mkdir "$T/nopsi"
PGLOAD_PRESSURE_DIR=$T/nopsi "$PGLOAD" restore run --dump "$T/oltp.dump" --pgdata "$T/dst" --dbname r_oltp \
	--clean --json "$T/nopsi.json" >"$T/nopsi.out" 2>&1 ||
	{ cat "$T/nopsi.out"; fail "--clean did not restore over the existing database"; }
check_same oltp-clean pgload_ref_oltp r_oltp
grep -q "PSI unknown: no /proc/pressure" "$T/nopsi.out" && grep -q "cpu pressure unknown, io pressure unknown" "$T/nopsi.out" ||
	{ cat "$T/nopsi.out"; fail "without PSI the output does not say the pressure is unknown"; }
python3 - "$T/nopsi.json" <<'EOF' || fail "without PSI: result document"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["phases"]:
    m, x = p["metrics"], p["extra"]
    assert not any(k.startswith("psi_") for k in m), p
    assert x["psi_known"] is False and "no /proc/pressure" in x["psi_note"], x
    assert "runq_mean" in m, p    # the run queue does not need PSI
EOF
ok "without PSI: pressure unknown (not 0), run queue still sampled"

# pgload's own check is not a formality: a sidecar that claims other row
# counts than the dump holds makes the run fail and name the table.
cp "$T/oltp.dump" "$T/tampered.dump"
python3 - "$T/oltp.dump.json" "$T/tampered.dump.json" <<'EOF' || fail "tampering the sidecar"
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["tables"]:
    if t["name"] == "public.pgbench_branches":
        t["rows"] += 1
json.dump(d, open(sys.argv[2], "w"))
EOF
expect_fail "restore differing from the sidecar" "pgbench_branches: 3 rows in the source, 2 restored" \
	"$PGLOAD" restore run --dump "$T/tampered.dump" --pgdata "$T/dst" --dbname r_tampered
