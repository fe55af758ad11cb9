#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dutlab results against a throwaway PostgreSQL 15 cluster: two real runs of
# a tiny experiment and two copies of the OLTP fixture (the second made
# later, with a TPS far outside the first) are pushed; pushing one again
# changes no row; the views answer (spread over two runs, the newest run per
# host, the regression); compare renders them (table, JSON, and the
# Markdown/HTML report with its charts); --where filters the runs before the
# views aggregate; an interrupted, a corrupted and a half-pushed run leave
# nothing; an unreachable database and a schema of a newer dutlab are clear
# errors; a database made by the version 1 DDL (schema-v1.sql) is upgraded
# in place by init with every row kept and the same answers.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../fixtures
# prerequisites, $WORK and the cleanup of runs, mounts and loop devices
. "$here/../run/it-lib.sh"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed (e2fsprogs)"
# ---- the cluster (stopped first by the cleanup trap) ----
. "$here/pg-lib.sh"
counts() { # [CONNINFO]
	"$PGBIN/psql" "${1:-$DB}" -XAtq -v ON_ERROR_STOP=1 -c "SELECT (SELECT count(*) FROM dutlab.runs), (SELECT count(*) FROM dutlab.configs),
		(SELECT count(*) FROM dutlab.reps), (SELECT count(*) FROM dutlab.steps),
		(SELECT count(*) FROM dutlab.documents), (SELECT count(*) FROM dutlab.results),
		(SELECT count(*) FROM dutlab.devices), (SELECT count(*) FROM dutlab.findings),
		(SELECT count(*) FROM dutlab.hosts)"
}

# ---- an unreachable database, a database without the schema ----
"$DUTLAB" results push "$fixtures/rundir-oltp" --db "host=$WORK/pg/sock port=$((port + 1)) user=postgres" \
	>"$WORK/o.txt" 2>&1 && fail "push to an unreachable database succeeded"
grep -q "cannot connect to the database" "$WORK/o.txt" || fail "unreachable database: $(cat "$WORK/o.txt")"
"$DUTLAB" results push "$fixtures/rundir-oltp" --db "$DB" >"$WORK/o.txt" 2>&1 && fail "push without a schema succeeded"
grep -q "no schema dutlab (run dutlab results init" "$WORK/o.txt" || fail "push without a schema: $(cat "$WORK/o.txt")"

# ---- init ----
"$DUTLAB" results init --db "$DB" >"$WORK/o.txt" 2>&1 || fail "init: $(cat "$WORK/o.txt")"
grep -q "created at version 2" "$WORK/o.txt" || fail "init said: $(cat "$WORK/o.txt")"
"$DUTLAB" results init --db "$DB" >"$WORK/o.txt" 2>&1 || fail "init again: $(cat "$WORK/o.txt")"
grep -q "at version 2 already" "$WORK/o.txt" || fail "init again said: $(cat "$WORK/o.txt")"

# ---- two real runs of a tiny experiment ----
results_tiny_ini "$WORK/tiny.ini"
for n in 1 2; do
	"$DUTLAB" run "$WORK/tiny.ini" --out "$WORK/run$n" >"$WORK/run$n.txt" 2>&1 &
	RUN_PID=$!
	wait "$RUN_PID"
	rc=$?
	RUN_PID=
	[ "$rc" -eq 0 ] || fail "dutlab run $n exited $rc: $(tail -5 "$WORK/run$n.txt")"
	[ "$(jq -r .status "$WORK/run$n/manifest.json")" = complete ] || fail "run $n is not complete"
	# one second apart at least: the run id has the start time to the second
	[ "$n" = 1 ] && sleep 1
done

# ---- the fixture three times: a second run close to the first, then a third whose sync-on TPS is 3x ----
later() { # DIR STARTED_AT FACTOR: a copy of the fixture started later, sync-on TPS x FACTOR
	cp -a "$fixtures/rundir-oltp" "$1"
	jq --arg s "$2" '.started_at = $s | del(.finished_at)' "$fixtures/rundir-oltp/manifest.json" >"$1/manifest.json"
	for r in rep1 rep2; do
		f=$1/c00-sync-on/$r/oltp.json
		jq --argjson k "$3" '(.phases[] | select(.name == "run") | .metrics.tps.value) |= . * $k' "$f" >"$f.new" &&
			mv "$f.new" "$f"
	done
}
cp -a "$fixtures/rundir-oltp" "$WORK/oltp-a"
later "$WORK/oltp-b" 2026-11-30T09:20:00Z 1.05
later "$WORK/oltp-c" 2026-12-01T08:20:00Z 3

# ---- push ----
"$DUTLAB" results push "$WORK/run1" "$WORK/run2" "$WORK/oltp-a" "$WORK/oltp-b" "$WORK/oltp-c" --db "$DB" >"$WORK/push.txt" 2>&1 ||
	fail "push: $(cat "$WORK/push.txt")"
cat "$WORK/push.txt"
grep -q "^pushed 5 runs, " "$WORK/push.txt" || fail "push did not say it pushed 5 runs"
before=$(counts)
echo "rows (runs configs reps steps documents results devices findings hosts): $before"
[ "$(echo "$before" | cut -d'|' -f1)" = 5 ] || fail "expected 5 runs in the database: $before"
id1="results-tiny@$(jq -r .host.hostname "$WORK/run1/manifest.json")@$(jq -r .started_at "$WORK/run1/manifest.json")"
[ "$(q "SELECT count(*) FROM dutlab.runs WHERE run_id = '$id1'")" = 1 ] || fail "run 1 is not there as $id1"
# the numbers are the documents' numbers
dir1=$(jq -r '.configs[0].reps[0].dir' "$WORK/run1/manifest.json")
want=$(jq -r '.phases[] | select(.name == "run") | .metrics.tps.value' "$WORK/run1/$dir1/rw.json")
got=$(q "SELECT value FROM dutlab.results WHERE run_id = '$id1' AND step = 'rw' AND phase = 'run' AND metric = 'tps'")
awk -v a="$want" -v b="$got" 'BEGIN { exit !(a == b && a > 0) }' || fail "tps of run 1: database $got, document $want"
want=$(jq -r '.phases[] | select(.name == "run") | .latency.txn.p99' "$WORK/run1/$dir1/rw.json")
got=$(q "SELECT value || '|' || unit FROM dutlab.results WHERE run_id = '$id1' AND step = 'rw' AND metric = 'txn.p99'")
awk -v a="$want" -v b="${got%%|*}" 'BEGIN { exit !(a == b && a > 0) }' && [ "${got#*|}" = ns ] ||
	fail "txn.p99 of run 1: database \"$got\", document $want ns"
ndocs=$(find "$WORK/run1" -name '*.json' ! -name manifest.json ! -name relmap.json ! -name dutfs-stats.json | wc -l)
[ "$(q "SELECT count(*) FROM dutlab.documents WHERE run_id = '$id1'")" = "$ndocs" ] ||
	fail "run 1: $(q "SELECT count(*) FROM dutlab.documents WHERE run_id = '$id1'") documents in the database, $ndocs files"
link=$(jq -r '.target.link.kind' "$WORK/run1/$dir1/id.json")
[ "$(q "SELECT split_part(link, ':', 1) FROM dutlab.devices WHERE run_id = '$id1'")" = "$link" ] ||
	fail "run 1: the device's link is not $link"
[ "$(q "SELECT count(*) FROM dutlab.findings WHERE run_id = '$id1'")" -gt 0 ] || fail "run 1: no findings"
[ "$(q "SELECT count(*) FROM dutlab.hosts")" = 2 ] || fail "expected 2 hosts (this one and the fixture's)"

# ---- the same run again changes nothing ----
"$DUTLAB" results push "$WORK/run1" --db "$DB" >"$WORK/o.txt" 2>&1 || fail "push again: $(cat "$WORK/o.txt")"
grep -q "is in the database already; nothing changed" "$WORK/o.txt" || fail "push again said: $(cat "$WORK/o.txt")"
[ "$(counts)" = "$before" ] || fail "pushing run 1 again changed the rows: $before -> $(counts)"

# ---- refused: interrupted, corrupted document, corrupted manifest; nothing of them loaded ----
refused() { # DIR WORDS
	"$DUTLAB" results push "$1" --db "$DB" >"$WORK/o.txt" 2>&1 && fail "$1 was pushed"
	grep -qF "$2" "$WORK/o.txt" || fail "$1: expected \"$2\": $(cat "$WORK/o.txt")"
	[ "$(counts)" = "$before" ] || fail "$1 was refused but rows changed: $before -> $(counts)"
	echo "refused as expected: $(grep refused "$WORK/o.txt" | head -1)"
}
cp -a "$WORK/run1" "$WORK/interrupted"
jq '.status = "running" | del(.finished_at) | .started_at = "2027-01-01T00:00:00Z"' "$WORK/run1/manifest.json" \
	>"$WORK/interrupted/manifest.json"
refused "$WORK/interrupted" 'status is "running", not complete'
cp -a "$WORK/run1" "$WORK/corrupt-doc"
jq '.started_at = "2027-01-01T00:00:01Z"' "$WORK/run1/manifest.json" >"$WORK/corrupt-doc/manifest.json"
f=$WORK/corrupt-doc/$dir1/rw.json
head -c $(($(stat -c %s "$f") / 2)) "$f" >"$f.half" && mv "$f.half" "$f"
refused "$WORK/corrupt-doc" "rw.json (step rw) not used"
cp -a "$WORK/run1" "$WORK/corrupt-manifest"
head -c 300 "$WORK/run1/manifest.json" >"$WORK/corrupt-manifest/manifest.json"
refused "$WORK/corrupt-manifest" "manifest.json"
cp -a "$WORK/run1" "$WORK/newer-manifest"
jq '.schema_version = 99' "$WORK/run1/manifest.json" >"$WORK/newer-manifest/manifest.json"
refused "$WORK/newer-manifest" "schema_version"

# ---- a push that fails half-way (the server refuses the findings) is rolled back whole ----
cp -a "$WORK/run1" "$WORK/half"
jq '.started_at = "2027-01-01T00:00:02Z"' "$WORK/run1/manifest.json" >"$WORK/half/manifest.json"
q "CREATE FUNCTION public.no_findings() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN RAISE EXCEPTION 'findings refused by the test'; END \$\$;
   CREATE TRIGGER no_findings BEFORE INSERT ON dutlab.findings FOR EACH ROW EXECUTE FUNCTION public.no_findings();" ||
	fail "cannot create the trigger"
refused "$WORK/half" "findings refused by the test"
q "DROP TRIGGER no_findings ON dutlab.findings; DROP FUNCTION public.no_findings();"

# ---- the views ----
spread=$(q "SELECT runs, min <= median AND median <= max FROM dutlab.metric_spread
	WHERE experiment = 'results-tiny' AND dimension = 'host' AND step = 'rw' AND metric = 'tps'")
[ "$spread" = "2|t" ] || fail "metric_spread for results-tiny tps per host: \"$spread\", expected 2 runs"
id2="results-tiny@$(jq -r .host.hostname "$WORK/run2/manifest.json")@$(jq -r .started_at "$WORK/run2/manifest.json")"
newest=$(q "SELECT DISTINCT run_id FROM dutlab.newest_per_host WHERE experiment = 'results-tiny'")
[ "$newest" = "$id2" ] || fail "newest_per_host for results-tiny: \"$newest\", expected $id2"
reg=$(q "SELECT config, direction, earlier_runs FROM dutlab.regressions
	WHERE experiment = 'sync-commit' AND step = 'oltp' AND metric = 'tps'")
[ "$reg" = "sync-on|above|2" ] || fail "regressions for sync-commit tps: \"$reg\", expected sync-on|above|2"
# two runs: one earlier run has no spread, so no regression
[ "$(q "SELECT count(*) FROM dutlab.regressions WHERE experiment = 'results-tiny'")" = 0 ] ||
	fail "results-tiny (two runs) has regressions"

# ---- compare: table and JSON ----
"$DUTLAB" results compare --db "$DB" --metric tps --json "$WORK/cmp.json" >"$WORK/cmp.txt" 2>&1 ||
	fail "compare: $(cat "$WORK/cmp.txt")"
cat "$WORK/cmp.txt"
grep -q "^Regressions" "$WORK/cmp.txt" && grep -qE "sync-commit +sync-on +oltp +run +tps .* above" "$WORK/cmp.txt" ||
	fail "compare's table has no regression of sync-on"
[ "$(jq -r '.schema + " " + (.schema_version | tostring)' "$WORK/cmp.json")" = "dutlab-results-compare 2" ] ||
	fail "compare JSON schema"
[ "$(jq -c .filter "$WORK/cmp.json")" = '{"metric":["tps"]}' ] || fail "compare JSON filter: $(jq -c .filter "$WORK/cmp.json")"
[ "$(jq '[.spread[] | select(.metric != "tps")] | length' "$WORK/cmp.json")" = 0 ] || fail "--metric tps let other metrics through"
[ "$(jq '[.spread[] | select(.experiment == "results-tiny" and .dimension == "host")][0].runs' "$WORK/cmp.json")" = 2 ] ||
	fail "compare JSON: results-tiny per host is not over 2 runs"
[ "$(jq '.regressions | length' "$WORK/cmp.json")" -ge 1 ] || fail "compare JSON has no regression"
"$DUTLAB" results compare --db "$DB" --experiment results-tiny --json - >"$WORK/cmp2.json" 2>&1 || fail "compare --json -"
[ "$(jq '[.spread[], .newest_per_host[] | select(.experiment != "results-tiny")] | length' "$WORK/cmp2.json")" = 0 ] ||
	fail "--experiment results-tiny let other experiments through"

# ---- --where: the filter reaches the runs before the views aggregate ----
cmpj() { "$DUTLAB" results compare --db "$DB" --json - "$@" 2>"$WORK/cmpj.err"; }
cmpj --where metric=tps --where host=dutlab-ci >"$WORK/w1.json" || fail "compare --where host: $(cat "$WORK/cmpj.err")"
[ "$(jq '[.spread[], .newest_per_host[], .regressions[] | select(.experiment != "sync-commit")] | length' "$WORK/w1.json")" = 0 ] ||
	fail "--where host=dutlab-ci let the runs of another host through"
[ "$(jq '.regressions | length' "$WORK/w1.json")" = 1 ] || fail "--where host=dutlab-ci lost the regression of sync-on"
# two values of one key: either host
host1=$(jq -r .host.hostname "$WORK/run1/manifest.json")
cmpj --where metric=tps --where host=dutlab-ci --where "host=$host1" >"$WORK/w2.json" || fail "compare --where host twice"
[ "$(jq '[.newest_per_host[].hostname] | unique | length' "$WORK/w2.json")" = 2 ] || fail "--where host=A --where host=B is not A or B"
# since: only oltp-b and oltp-c; one earlier run has no spread, so the regression is gone (a filter
# applied after the window would still show it), and the spread is over 2 runs
cmpj --metric tps --where since=2026-11-30T09:00:00Z --where until=2026-12-01T09:00:00Z >"$WORK/w3.json" ||
	fail "compare --where since/until: $(cat "$WORK/cmpj.err")"
[ "$(jq '.regressions | length' "$WORK/w3.json")" = 0 ] || fail "--where since did not reach the runs before regressions"
[ "$(jq '[.spread[] | select(.config == "sync-on" and .dimension == "host")][0].runs' "$WORK/w3.json")" = 2 ] ||
	fail "--where since/until: sync-on is not over 2 runs"
[ "$(jq '[.spread[] | select(.experiment == "results-tiny")] | length' "$WORK/w3.json")" = 0 ] ||
	fail "--where until let the runs of today's tests through"
# a device model that no run has: nothing, and a clear "none"
"$DUTLAB" results compare --db "$DB" --where model=no-such-drive >"$WORK/w4.txt" 2>&1 || fail "compare --where model"
[ "$(grep -c '(none)' "$WORK/w4.txt")" = 3 ] || fail "--where model=no-such-drive: $(cat "$WORK/w4.txt")"
# refusals: an unknown key (usage, 2), a timestamp the server does not read (1)
"$DUTLAB" results compare --db "$DB" --where hostname=x >"$WORK/o.txt" 2>&1
[ $? = 2 ] && grep -q 'unknown key "hostname"' "$WORK/o.txt" || fail "--where hostname=x: $(cat "$WORK/o.txt")"
"$DUTLAB" results compare --db "$DB" --where since=2026-13-45 >"$WORK/o.txt" 2>&1
[ $? = 1 ] && grep -q 'since=2026-13-45: "2026-13-45" is not a timestamp PostgreSQL reads (date/time field value out of range' "$WORK/o.txt" || fail "--where since=2026-13-45: $(cat "$WORK/o.txt")"
"$DUTLAB" results push "$WORK/run1" --db "$DB" --where host=x >"$WORK/o.txt" 2>&1
[ $? = 2 ] || fail "push accepted --where"

# ---- --report: the report renderers (Markdown, HTML) and the charts ----
"$DUTLAB" results compare --db "$DB" --metric tps --report "$WORK/rep" >"$WORK/o.txt" 2>"$WORK/rep.err" ||
	fail "compare --report: $(cat "$WORK/rep.err")"
cat "$WORK/rep.err"
md=$WORK/rep/results.md html=$WORK/rep/results.html
[ -s "$md" ] && [ -s "$html" ] || fail "compare --report wrote no results.md/results.html"
grep -q '^## Regressions' "$md" && grep -qE '^\| sync-commit \| sync-on \| oltp \| run \| tps \| tx/s \| dutlab-ci \| .* \| above \|$' "$md" ||
	fail "results.md has no regression row of sync-on"
grep -q '<td class="n">710.525</td>' "$html" || fail "results.html has not the regression's value"
grep -q '^Runs: metric = "tps"\.' "$md" || fail "results.md does not say its filter"
nch=$(grep -c '](charts/spread-[0-9][0-9]-.*\.png)' "$md")
if command -v gnuplot >/dev/null; then
	[ "$nch" -ge 2 ] || fail "results.md shows $nch charts, expected 2 (sync-commit and results-tiny tps)"
	for png in $(grep -o 'charts/spread-[^)]*\.png' "$md"); do
		[ "$(head -c 4 "$WORK/rep/$png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$png is not a PNG"
	done
	grep -q "report: .*; $nch of $nch charts drawn" "$WORK/rep.err" || fail "compare --report said: $(cat "$WORK/rep.err")"
else
	grep -q 'Chart not rendered' "$md" || fail "without gnuplot results.md does not say the charts were not drawn"
fi
grep -q 'sync-on, ' "$WORK/rep/charts/"spread-*sync-commit*.dat 2>/dev/null ||
	grep -q '"sync-on"' "$WORK/rep/charts/"spread-*sync-commit*.dat || fail "the sync-commit chart has no sync-on bar"

# ---- the upgrade path: a database made by the version 1 DDL, with rows, upgraded in place ----
q "CREATE DATABASE old" >/dev/null || fail "create database old"
OLD="host=$WORK/pg/sock port=$port user=postgres dbname=old"
"$PGBIN/psql" "$OLD" -XAtq -v ON_ERROR_STOP=1 -f "$here/schema-v1.sql" ||
	fail "schema-v1.sql does not load"
"$PGBIN/psql" "$OLD" -XAtq -v ON_ERROR_STOP=1 -c "INSERT INTO dutlab.schema_version (version, dutlab_version) VALUES (1, 'dutlab 0.1.0')"
# the rows of the main database (its tables are version 1's: version 2 only adds functions)
"$PGBIN/pg_dump" -d "$DB" --data-only --schema=dutlab --exclude-table=dutlab.schema_version >"$WORK/rows.sql" ||
	fail "pg_dump of the rows"
"$PGBIN/psql" "$OLD" -XAtq -v ON_ERROR_STOP=1 -f "$WORK/rows.sql" >/dev/null || fail "the rows do not load into the version 1 schema"
old_rows=$(counts "$OLD")
[ "$old_rows" = "$(counts)" ] || fail "the old database has other rows: $old_rows"
"$DUTLAB" results push "$WORK/run1" --db "$OLD" >"$WORK/o.txt" 2>&1 && fail "push into a version 1 schema succeeded"
grep -q "version 1, this dutlab writes 2 (run dutlab results init" "$WORK/o.txt" || fail "push into version 1 said: $(cat "$WORK/o.txt")"
"$DUTLAB" results init --db "$OLD" >"$WORK/o.txt" 2>&1 || fail "init of the version 1 database: $(cat "$WORK/o.txt")"
grep -q "upgraded from version 1 to 2" "$WORK/o.txt" || fail "init of version 1 said: $(cat "$WORK/o.txt")"
[ "$(counts "$OLD")" = "$old_rows" ] || fail "the upgrade changed the rows: $old_rows -> $(counts "$OLD")"
[ "$("$PGBIN/psql" "$OLD" -XAtqc "SELECT string_agg(version::text, ',' ORDER BY version) FROM dutlab.schema_version")" = "1,2" ] ||
	fail "schema_version after the upgrade is not 1,2"
for f in "--metric tps" "--where host=dutlab-ci" ""; do
	# shellcheck disable=SC2086
	"$DUTLAB" results compare --db "$OLD" --json - $f >"$WORK/old.json" || fail "compare $f on the upgraded database"
	# shellcheck disable=SC2086
	cmpj $f >"$WORK/new.json" || fail "compare $f"
	cmp -s "$WORK/old.json" "$WORK/new.json" || fail "compare $f: the upgraded database answers otherwise"
done
"$DUTLAB" results push "$WORK/run2" --db "$OLD" >"$WORK/o.txt" 2>&1 && grep -q "in the database already" "$WORK/o.txt" ||
	fail "push into the upgraded database: $(cat "$WORK/o.txt")"
echo "upgraded in place: rows (runs configs reps steps documents results devices findings hosts) $old_rows kept"

# ---- a schema of a newer dutlab ----
q "CREATE DATABASE newer" >/dev/null || fail "create database"
NEWER="host=$WORK/pg/sock port=$port user=postgres dbname=newer"
"$DUTLAB" results init --db "$NEWER" >/dev/null 2>&1 || fail "init of the database newer"
"$PGBIN/psql" "$NEWER" -XAtqc "INSERT INTO dutlab.schema_version (version, dutlab_version) VALUES (3, 'future')" ||
	fail "cannot fake a newer schema"
for cmd in "init" "push $WORK/run1" "compare"; do
	# shellcheck disable=SC2086
	"$DUTLAB" results $cmd --db "$NEWER" >"$WORK/o.txt" 2>&1 && fail "results $cmd accepted a newer schema"
	grep -q "schema dutlab version 3, this dutlab knows versions up to 2" "$WORK/o.txt" ||
		fail "results $cmd on a newer schema said: $(cat "$WORK/o.txt")"
done
[ "$("$PGBIN/psql" "$NEWER" -XAtqc "SELECT count(*) FROM dutlab.runs")" = 0 ] || fail "a run went into the newer schema"
echo "PASS"
