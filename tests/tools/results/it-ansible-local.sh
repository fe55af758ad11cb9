#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Ansible example (tools/ansible/dutlab-fleet.yml) run end to end against
# localhost (ansible_connection=local, as root, no become): the results schema
# is created in the test's own PostgreSQL 15 cluster, the tiny experiment
# runs, its run is pushed and its run directory fetched as a tarball; the
# run in the database is the run in the tarball.  dutlab_install=none uses
# the dutlab of this build: the clone (git, tools/setup: apt and a full
# build) and package tasks are skipped here, and only their syntax is
# checked (tools_results_ansible).  A play without its required variables
# stops at the first task with what to give.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
play=$here/../../../tools/ansible/dutlab-fleet.yml
# prerequisites, $WORK and the cleanup of runs, mounts and loop devices
. "$here/../run/it-lib.sh"
command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (apt-get install ansible)"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed (e2fsprogs)"
[ -f "$play" ] || fail "no $play"
# the cluster, stopped first by the cleanup trap
. "$here/pg-lib.sh"

export ANSIBLE_LOCAL_TEMP=$WORK/ansible-tmp ANSIBLE_REMOTE_TEMP=$WORK/ansible-tmp ANSIBLE_NOCOLOR=1 \
	ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
printf '[dut]\nlocalhost ansible_connection=local ansible_become=false\n' >"$WORK/inventory.ini"
results_tiny_ini "$WORK/tiny.ini"

playbook() { # OUT ARGS...: in the background, so that the cleanup trap can stop it
	local out=$1
	shift
	ansible-playbook -i "$WORK/inventory.ini" "$play" "$@" >"$out" 2>&1 &
	RUN_PID=$!
	wait "$RUN_PID"
	rc=$?
	RUN_PID=
	return $rc
}

# ---- without the required variables: refused at the first task, with what to give ----
playbook "$WORK/bare.txt" -e dutlab_install=none && fail "the play ran without an experiment and a database"
grep -q "give -e experiment=FILE.ini -e results_db=CONNINFO" "$WORK/bare.txt" ||
	fail "the refused play said: $(tail -20 "$WORK/bare.txt")"

# ---- the play ----
# as a JSON file: -e KEY=VALUE would split the conninfo at its spaces
jq -n --arg dutlab "$DUTLAB" --arg experiment "$WORK/tiny.ini" --arg db "$DB" --arg work "$WORK" \
	'{dutlab_install: "none", dutlab: $dutlab, experiment: $experiment, results_db: $db,
	  run_root: $work, fetch_dir: ($work + "/fetched")}' >"$WORK/vars.json"
playbook "$WORK/play.txt" -e "@$WORK/vars.json" ||
	fail "ansible-playbook exited $rc: $(tail -30 "$WORK/play.txt")"
sed -n '/^PLAY RECAP/,$p' "$WORK/play.txt"
grep -qE '^localhost +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0' "$WORK/play.txt" ||
	fail "the recap is not clean: $(sed -n '/^PLAY RECAP/,$p' "$WORK/play.txt")"
grep -q 'TASK \[The results schema exists' "$WORK/play.txt" || fail "the init task did not run"

# the schema, the run in it
[ "$(q "SELECT max(version) FROM dutlab.schema_version")" = 2 ] || fail "the play did not create the schema"
[ "$(q "SELECT count(*) FROM dutlab.runs")" = 1 ] || fail "expected one run in the database: $(q "SELECT run_id FROM dutlab.runs")"
run_id=$(q "SELECT run_id FROM dutlab.runs")
rundir=$(q "SELECT rundir FROM dutlab.runs")
[ "$(q "SELECT count(*) FROM dutlab.results WHERE step = 'rw' AND metric = 'tps' AND value > 0")" = 1 ] ||
	fail "the run in the database has no tps of step rw"

# the fetched tarball is that run, complete
tgz=$(find "$WORK/fetched/localhost" -name 'tiny-localhost-*.tar.gz' 2>/dev/null)
[ "$(echo "$tgz" | grep -c .)" = 1 ] || fail "expected one fetched tarball under $WORK/fetched/localhost: $tgz"
[ "$(basename "$tgz" .tar.gz)" = "$(basename "$rundir")" ] || fail "the tarball $tgz is not the pushed $rundir"
# the archive on the host keeps the run's private files private
[ "$(stat -c %a "$rundir.tar.gz")" = 600 ] || fail "the packed run $rundir.tar.gz is mode $(stat -c %a "$rundir.tar.gz"), not 600"
mkdir "$WORK/unpacked" && tar -C "$WORK/unpacked" -xzf "$tgz" || fail "the tarball does not unpack"
m=$WORK/unpacked/$(basename "$rundir")/manifest.json
[ "$(jq -r .status "$m")" = complete ] || fail "the fetched run is not complete"
[ "$(jq -r '.experiment.name + "@" + .host.hostname + "@" + .started_at' "$m")" = "$run_id" ] ||
	fail "the fetched run is not the run in the database ($run_id)"
[ -s "$WORK/unpacked/$(basename "$rundir")/report.md" ] || fail "the fetched run has no report"
# the run tore down what it staged (the cluster of this test is under $WORK/pg, not mounted)
! grep -q -- "$WORK" /proc/self/mountinfo || fail "left mounted: $(grep -- "$WORK" /proc/self/mountinfo)"
[ -z "$(losetup -j "$WORK/disk.img" 2>/dev/null)" ] || fail "loop device left: $(losetup -j "$WORK/disk.img")"
echo "PASS: $run_id in the database and in $(basename "$tgz")"
