#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Which PostgreSQL dutlab run takes (issue #22), against a fake
# /usr/lib/postgresql (DUT_PG_ROOT): stubs of initdb, pg_ctl and postgres
# that print a version; nothing is started, every case is a --dry-run.
#   newest      without version or bindir: the newest major with initdb and pg_ctl
#   version     version = 13 takes 13/bin; 17 (not there) and 16 (client only)
#               are refused, naming what is installed
#   bindir      bindir = DIR takes DIR; one without the programs, or with a
#               PostgreSQL 12, is refused
#   both        version and bindir together are refused at parse time
#   setting     io_method on 15 is refused with the reason and the bindir;
#               on 18 it passes
#   matrix      version = 15, 18 x set.io_method: pg15 refused, pg18 passes
#   restore     pgload restore on a cluster whose PG_VERSION names a major
#               that is not installed is refused before it starts
here=$(cd "$(dirname "$0")" && pwd)
. "$here/it-lib.sh"
PGLOAD=${2:?usage: $0 path/to/dutlab path/to/pgload}

fake=$WORK/pg
stub() { # DIR VERSION [PROGRAMS...]
	local dir=$1 ver=$2 p
	shift 2
	mkdir -p "$dir"
	for p in "$@"; do
		printf '#!/bin/sh\necho "%s (PostgreSQL) %s (fake)"\n' "$p" "$ver" >"$dir/$p"
		chmod 755 "$dir/$p"
	done
}
all=(initdb pg_ctl postgres pg_dump pg_restore)
stub "$fake/13/bin" 13.20 "${all[@]}"
stub "$fake/15/bin" 15.99 "${all[@]}"
stub "$fake/16/bin" 16.5 psql pg_dump pg_restore     # the client only
stub "$WORK/custom/bin" 17.4 "${all[@]}"
stub "$WORK/old/bin" 12.22 "${all[@]}"
mkdir -p "$WORK/empty/bin" "$WORK/data"
export DUT_PG_ROOT=$fake
# no dutlab pg build cache: the refusals then name the project's measured build time
mkdir -p "$WORK/nocache"
export DUT_PG_CACHE=$WORK/nocache

# exp NAME [POSTGRES-LINES] [MATRIX-LINES] > NAME.ini: a directory target, one oltp-init step
exp() {
	{
		printf '[experiment]\nname = %s\n[target work]\ntype = directory\npath = %s\n' "$1" "$WORK/data"
		[ -n "${2:-}" ] && printf '[postgres]\n%b\n' "$2"
		[ -n "${3:-}" ] && printf '[matrix]\n%b\n' "$3"
		printf '[step load]\ntype = oltp-init\nscale = 1\n'
	} >"$WORK/$1.ini"
}
# dry NAME WANT-RC LINE...: dutlab run --dry-run exits WANT-RC and prints every LINE (fixed strings)
dry() {
	local name=$1 want=$2 rc l
	shift 2
	"$DUTLAB" run "$WORK/$name.ini" --dry-run >"$WORK/$name.out" 2>&1
	rc=$?
	sed 's/^/    /' "$WORK/$name.out"
	[ "$rc" -eq "$want" ] || fail "$name: --dry-run exited $rc, expected $want"
	for l in "$@"; do
		grep -qF -- "$l" "$WORK/$name.out" || fail "$name: no line with: $l"
	done
}

exp newest
dry newest 0 "configuration c00-default: PostgreSQL 15 (postgres (PostgreSQL) 15.99 (fake)) from $fake/15/bin" \
	"checks passed"
echo "PASS: newest"

exp v13 "version = 13"
dry v13 0 "PostgreSQL 13; replica none" "PostgreSQL 13 (postgres (PostgreSQL) 13.20 (fake)) from $fake/13/bin"
exp v17 "version = 17"
dry v17 1 "configuration c00-default cannot run: PostgreSQL 17 is not installed in $fake/17/bin (found: " \
	"install the Debian package postgresql-17" "(the build: about 15 min on a 2-core machine; no build here was timed yet)"
grep -F "cannot run" "$WORK/v17.out" | grep -q "13" && grep -F "cannot run" "$WORK/v17.out" | grep -q "15" ||
	fail "version: the refusal of 17 does not list the installed 13 and 15"
exp v16 "version = 16"
dry v16 1 "PostgreSQL 16 is not installed" "16 (no initdb, no pg_ctl: the client only)"
echo "PASS: version"

exp bin "bindir = $WORK/custom/bin"
dry bin 0 "PostgreSQL from $WORK/custom/bin" "PostgreSQL 17 (postgres (PostgreSQL) 17.4 (fake)) from $WORK/custom/bin"
exp binempty "bindir = $WORK/empty/bin"
dry binempty 1 "cannot run: bindir $WORK/empty/bin has no initdb, pg_ctl, postgres"
exp binold "bindir = $WORK/old/bin"
dry binold 1 "$WORK/old/bin is PostgreSQL 12" "older than dutlab supports (13 and later)"
echo "PASS: bindir"

exp both "version = 17\nbindir = $WORK/custom/bin"
dry both 1 "both.ini:8: [postgres]: version (line 7) and bindir name the PostgreSQL to use twice"
echo "PASS: both"

exp io15 "version = 15\nset = io_method = worker"
dry io15 1 "io_method needs PostgreSQL 18; this configuration uses 15 ($fake/15/bin)"
stub "$fake/18/bin" 18.1 "${all[@]}"
exp io18 "version = 18\nset = io_method = worker"
dry io18 0 "PostgreSQL 18 (postgres (PostgreSQL) 18.1 (fake)) from $fake/18/bin" "checks passed"
echo "PASS: setting"

exp mx "" "version = 15, 18\nset.io_method = worker"
dry mx 1 "configuration c00-pg15+io_method_worker cannot run: io_method needs PostgreSQL 18; this configuration uses 15" \
	"1 of 2 configurations cannot run"
grep -q "c01-pg18.*cannot run" "$WORK/mx.out" && fail "matrix: pg18 was refused too"
echo "PASS: matrix"

# ---- restore: the cluster's own major, from its PG_VERSION ----
mkdir -p "$WORK/cluster17"
echo 17 >"$WORK/cluster17/PG_VERSION"
"$PGLOAD" restore run --dump "$WORK/x.dump" --pgdata "$WORK/cluster17" >"$WORK/restore.out" 2>&1
rc=$?
cat "$WORK/restore.out"
[ "$rc" -ne 0 ] || fail "restore: exit 0 on a cluster of a major that is not installed"
grep -qF "the cluster in $WORK/cluster17 is PostgreSQL 17 (its PG_VERSION), whose pg_dump and pg_restore restore uses: PostgreSQL 17 is not installed" \
	"$WORK/restore.out" || fail "restore: no refusal naming the cluster's major"
echo "PASS: restore"
