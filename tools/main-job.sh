#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The dutlab main job (first version), run by `dutlab run [OPTIONS]`:
#
#   mount dutfs over a work directory, create a PostgreSQL 15 cluster on it,
#   load pgbench and run a read-write and a select-only phase, write the
#   relation map, stop everything, then print the per-class I/O report.
#
#   dutlab run [--dir PATH] [--scale N] [--duration S] [--clients N]
#              [--view device|syscall]
#
#   --dir PATH     work directory (default /var/tmp/dutlab/default): the
#                  database lives in PATH/backing, seen through dutfs at
#                  PATH/mnt.  Point it at the device under test.  A non-empty
#                  PATH is refused unless it is a previous dutlab work dir.
#   --scale N      pgbench scale (default 10; 15 MB per unit)
#   --duration S   seconds of each pgbench phase (default 30)
#   --clients N    pgbench clients (default 8; threads: 2)
#   --view V       dutfs view: device (default: what reaches the device) or
#                  syscall (every read/write PostgreSQL issues)
#
# Outputs go to a run directory /var/tmp/dutlab/runs/<timestamp>/ (or
# PATH/runs/<timestamp>/ with --dir): trace.dtr, relmap.json, report.txt,
# report.json, run.json, dutfs-stats.json, postgres.log, pgbench logs.
set -uo pipefail

prog="dutlab run"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
build=${DUT_BUILD_ROOT:-$root/build}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

workdir=/var/tmp/dutlab/default
runs_root=/var/tmp/dutlab/runs
scale=10
duration=30
clients=8
view=device
user_dir=false

usage() { sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; }
err() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { err "$*"; exit 1; }
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive whole number, not '$2'"; }

while [ $# -gt 0 ]; do
	case $1 in
	--dir) [ $# -ge 2 ] || die "--dir needs a path"; workdir=$2; user_dir=true; shift ;;
	--dir=*) workdir=${1#*=}; user_dir=true ;;
	--scale) [ $# -ge 2 ] || die "--scale needs a number"; scale=$2; shift ;;
	--scale=*) scale=${1#*=} ;;
	--duration) [ $# -ge 2 ] || die "--duration needs seconds"; duration=$2; shift ;;
	--duration=*) duration=${1#*=} ;;
	--clients) [ $# -ge 2 ] || die "--clients needs a number"; clients=$2; shift ;;
	--clients=*) clients=${1#*=} ;;
	--view) [ $# -ge 2 ] || die "--view needs device or syscall"; view=$2; shift ;;
	--view=*) view=${1#*=} ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown argument '$1' (try --help)" ;;
	esac
	shift
done
posint --scale "$scale"
posint --duration "$duration"
posint --clients "$clients"
[ "$view" = device ] || [ "$view" = syscall ] || die "--view must be device or syscall, not '$view'"
threads=$(( clients < 2 ? 1 : 2 ))

nsteps=9
step_no=0
step_t0=0
step() { # "description": prints "[n/N] description ..." and starts the clock
	step_no=$((step_no + 1))
	printf '[%d/%d] %s ... ' "$step_no" "$nsteps" "$1"
	step_t0=$(date +%s.%N)
}
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
step_done() { # [extra text]
	printf '%s s%s\n' "$(since "$step_t0")" "${1:+ ($1)}"
}
step_fail() { # message
	printf 'FAILED\n'
	die "$*"
}

# ---- [1] prerequisites ----
step "checking the build and PostgreSQL 15"
[ "$(id -u)" -eq 0 ] || step_fail "run as root (dutfs mounts with allow_other; PostgreSQL runs as user postgres): sudo $0 $*"
DUTFS=$build/fuse/dutfs
DUTLAB=$build/tools/dutlab
[ -x "$DUTFS" ] || step_fail "dutfs is not built ($DUTFS missing): run tools/setup first"
for p in initdb pg_ctl postgres pgbench psql; do
	[ -x "$PGBIN/$p" ] || step_fail "PostgreSQL 15 is missing ($PGBIN/$p): run tools/setup first"
done
id postgres >/dev/null 2>&1 || step_fail "there is no user 'postgres': run tools/setup first"
[ -c /dev/fuse ] || step_fail "/dev/fuse is missing: this kernel cannot mount FUSE file systems"
for p in awk ss runuser; do
	command -v "$p" >/dev/null || step_fail "'$p' is missing: run tools/setup first"
done
step_done

# ---- [2] work and run directories ----
step "preparing the work directory $workdir"
marker=.dutlab-workdir
if [ -e "$workdir" ]; then
	[ -d "$workdir" ] || step_fail "$workdir exists and is not a directory"
	if [ ! -e "$workdir/$marker" ]; then
		others=$(find "$workdir" -mindepth 1 -maxdepth 1 ! -name lost+found -printf '%f ' 2>/dev/null | head -c 200)
		[ -z "$others" ] || step_fail "$workdir is not empty and is not a dutlab work directory (it holds: $others); give an empty directory or a previous dutlab work directory"
	fi
else
	mkdir -p "$workdir" || step_fail "cannot create $workdir"
fi
workdir=$(cd "$workdir" && pwd) # absolute, before anything else uses it
cd / # every path is absolute now; postgres may not be able to enter the caller's cwd
backing=$workdir/backing
mnt=$workdir/mnt
if awk -v m="$mnt" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; then
	step_fail "$mnt is still mounted (another dutlab run, or a leftover): umount $mnt first"
fi
$user_dir && runs_root=$workdir/runs
rundir=$runs_root/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$backing" "$mnt" "$rundir" || step_fail "cannot create directories under $workdir and $rundir"
echo "dutlab work directory: backing/ is the database through dutfs at mnt/" >"$workdir/$marker"
# A fresh cluster every run: the previous one is removed.
rm -rf "$backing/pgdata"
# PostgreSQL (user postgres) must be able to walk down to the mount.
d=$mnt
while [ "$d" != / ]; do
	chmod o+x "$d" 2>/dev/null || true
	d=$(dirname "$d")
done
chmod 755 "$backing" "$mnt" "$rundir"
trace=$rundir/trace.dtr
relmap=$rundir/relmap.json
pglog=$rundir/postgres.log
step_done "run directory $rundir"

# ---- cleanup: stop PostgreSQL, unmount, whatever happened ----
pgdata=$mnt/pgdata
pgsock=
pgport=
dutfs_pid=
mounted=false
pg_running=false

as_pg() { runuser -u postgres -- "$@"; }

# Long steps run in the background and are waited for, so that a signal to
# this script is handled at once (bash runs traps only between commands)
# and the cleanup can stop the step.
# The output goes to LOG inside: a redirection of the whole call would also
# catch what the traps print while the step runs.
child=
run_waited() { # LOG command...
	local log=$1
	shift
	"$@" >"$log" 2>&1 &
	child=$!
	wait "$child"
	local rc=$?
	child=
	return $rc
}

stop_pg() { # mode
	$pg_running || return 0
	if ! as_pg timeout 90 "$PGBIN/pg_ctl" -D "$pgdata" -m "$1" -w -t 60 stop >/dev/null 2>&1; then
		err "PostgreSQL did not stop ($1); stopping it immediately"
		as_pg timeout 30 "$PGBIN/pg_ctl" -D "$pgdata" -m immediate -w -t 20 stop >/dev/null 2>&1 || {
			pid=$(head -1 "$pgdata/postmaster.pid" 2>/dev/null)
			[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
		}
	fi
	pg_running=false
}

unmount() {
	$mounted || return 0
	if ! timeout 60 umount "$mnt" 2>/dev/null; then
		err "umount $mnt failed; lazy unmount"
		umount -l "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null
	fi
	mounted=false
	# The trace is complete when the daemon has exited (it writes the footer).
	if [ -n "$dutfs_pid" ]; then
		for _ in $(seq 600); do kill -0 "$dutfs_pid" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$dutfs_pid" 2>/dev/null; then
			err "dutfs (pid $dutfs_pid) did not exit 60 s after unmount; killing it (the trace will have no footer)"
			kill -9 "$dutfs_pid" 2>/dev/null
		fi
	fi
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	if $pg_running || $mounted; then
		[ $rc -ne 0 ] && err "stopping PostgreSQL and unmounting $mnt after the failure above"
		stop_pg immediate
		unmount
	fi
	[ -n "$pgsock" ] && rm -rf "$pgsock"
	exit $rc
}
trap cleanup EXIT
trap 'echo; err "interrupted"; exit 130' INT
trap 'err "terminated"; exit 143' TERM

control() { # "command": write it to the dutfs control file; warn if refused
	local ans
	if ! { printf '%s\n' "$1" >"$mnt/.dutfs/control"; } 2>/dev/null; then
		err "warning: could not write '$1' to $mnt/.dutfs/control"
		return 0
	fi
	ans=$(cat "$mnt/.dutfs/control" 2>/dev/null)
	[ "$ans" = ok ] || err "warning: dutfs answered '$ans' to '$1'"
}

free_port() {
	local p
	for _ in $(seq 200); do
		p=$(( 20000 + RANDOM % 30000 ))
		ss -Htan "sport = :$p" | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}

# ---- [3] mount ----
step "mounting dutfs ($view view) at $mnt"
"$DUTFS" "$backing" "$mnt" --view "$view" --trace "$trace" --pidfile "$rundir/dutfs.pid" \
	>"$rundir/dutfs.log" 2>&1 || step_fail "dutfs could not mount: $(tail -3 "$rundir/dutfs.log")"
mounted=true
dutfs_pid=$(cat "$rundir/dutfs.pid" 2>/dev/null)
awk -v m="$mnt" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo || step_fail "dutfs exited 0 but $mnt is not mounted"
step_done "trace $trace"

# ---- [4] initdb ----
step "initdb --data-checksums"
control "mark initdb"
mkdir "$pgdata" && chown postgres: "$pgdata" && chmod 700 "$pgdata" || step_fail "cannot create $pgdata on the mount"
run_waited "$rundir/initdb.log" as_pg "$PGBIN/initdb" -D "$pgdata" --data-checksums -A trust -U postgres \
	--no-instructions || step_fail "initdb failed: see $rundir/initdb.log"
step_done

# ---- [5] start ----
step "starting PostgreSQL 15"
pgport=$(free_port) || step_fail "no free TCP port"
pgsock=$(mktemp -d /tmp/dutlab-sock.XXXXXX) && chown postgres: "$pgsock"
touch "$pglog" && chown postgres: "$pglog"
control "mark start"
as_pg "$PGBIN/pg_ctl" -D "$pgdata" -l "$pglog" -w -t 120 start \
	-o "-p $pgport -k $pgsock -c listen_addresses=''" >/dev/null 2>&1 \
	|| step_fail "PostgreSQL did not start: see $pglog"
pg_running=true
step_done "port $pgport, socket dir $pgsock"

pgb() { as_pg "$PGBIN/pgbench" -h "$pgsock" -p "$pgport" "$@"; }
psql_q() { as_pg "$PGBIN/psql" -h "$pgsock" -p "$pgport" -d postgres -XAtq -v ON_ERROR_STOP=1 -c "$1"; }
tps_of() { sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$1" | tail -1 | awk '{ printf "%.1f", $1 }'; }

# ---- [6] pgbench -i ----
step "pgbench -i scale $scale"
control "mark pgbench-init"
t0=$(date +%s.%N)
run_waited "$rundir/pgbench-init.log" pgb -i -s "$scale" -q postgres || step_fail "pgbench -i failed: see $rundir/pgbench-init.log"
init_s=$(since "$t0")
psql_q "CHECKPOINT" >/dev/null
step_done

# ---- [7] read-write ----
step "pgbench tpcb-like, $clients clients, $duration s"
control "mark pgbench-tpcb-like"
run_waited "$rundir/pgbench-rw.log" pgb -c "$clients" -j "$threads" -T "$duration" -P 10 postgres \
	|| step_fail "pgbench read-write failed: see $rundir/pgbench-rw.log"
rw_tps=$(tps_of "$rundir/pgbench-rw.log")
step_done "${rw_tps:-?} tps"

# ---- [8] select-only ----
step "pgbench select-only, $clients clients, $duration s"
control "mark pgbench-select-only"
run_waited "$rundir/pgbench-ro.log" pgb -S -c "$clients" -j "$threads" -T "$duration" -P 10 postgres \
	|| step_fail "pgbench select-only failed: see $rundir/pgbench-ro.log"
ro_tps=$(tps_of "$rundir/pgbench-ro.log")
step_done "${ro_tps:-?} tps"
control "mark end"

# ---- [9] relmap, stop, unmount ----
step "relation map, stop PostgreSQL, unmount"
relmap_note=
if [ -x "$here/relmap.sh" ]; then
	if ! timeout 120 "$here/relmap.sh" -o "$relmap" -h "$pgsock" -p "$pgport" -U postgres 2>"$rundir/relmap.log"; then
		relmap_note="tools/relmap.sh failed (see $rundir/relmap.log); the report has no relation names"
		rm -f "$relmap"
	fi
else
	relmap_note="tools/relmap.sh does not exist yet; the report has no relation names"
fi
cp "$mnt/.dutfs/stats.json" "$rundir/dutfs-stats.json" 2>/dev/null || true
stop_pg fast
unmount
step_done

# ---- run summary (JSON) ----
jstr() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
jnum() { [ -n "$1" ] && printf '%s' "$1" || printf 'null'; }
{
	printf '{\n  "schema": "dutlab-run", "schema_version": 1,\n'
	printf '  "started_at": %s,\n' "$(jstr "$(basename "$rundir")")"
	printf '  "workdir": %s, "backing": %s, "view": %s,\n' "$(jstr "$workdir")" "$(jstr "$backing")" "$(jstr "$view")"
	printf '  "postgresql": %s,\n' "$(jstr "$("$PGBIN/postgres" --version)")"
	printf '  "pgbench": { "scale": %s, "clients": %s, "threads": %s, "duration_s": %s,\n' "$scale" "$clients" "$threads" "$duration"
	printf '               "init_s": %s, "tpcb_like_tps": %s, "select_only_tps": %s },\n' "$(jnum "$init_s")" "$(jnum "$rw_tps")" "$(jnum "$ro_tps")"
	printf '  "trace": %s, "relmap": %s\n}\n' "$(jstr "$trace")" "$( [ -s "$relmap" ] && jstr "$relmap" || echo null)"
} >"$rundir/run.json"

# ---- report ----
echo
printf 'pgbench scale %s: load %s s, tpcb-like %s tps, select-only %s tps (%s clients, %s s each)\n' \
	"$scale" "$init_s" "${rw_tps:-?}" "${ro_tps:-?}" "$clients" "$duration"
[ -n "$relmap_note" ] && err "$relmap_note"
report_ok=false
if [ -x "$DUTLAB" ]; then
	rargs=("$trace")
	[ -s "$relmap" ] && rargs+=(--relmap "$relmap")
	if "$DUTLAB" report "${rargs[@]}" --json "$rundir/report.json" >"$rundir/report.txt" 2>"$rundir/report.err"; then
		report_ok=true
		echo
		cat "$rundir/report.txt"
		# Which relations make the I/O: the question the class table cannot answer.
		if [ -s "$relmap" ] && "$DUTLAB" report "$trace" --relmap "$relmap" --by relation --top 10 \
			>"$rundir/report-relations.txt" 2>>"$rundir/report.err"; then
			echo
			sed -n '/^By relation/,/^$/p' "$rundir/report-relations.txt"
		fi
	else
		err "dutlab report failed: $(head -3 "$rundir/report.err")"
	fi
else
	err "dutlab report is not available yet ($DUTLAB is not built); the trace is kept for later"
fi

echo
echo "outputs in $rundir:"
echo "  trace     $trace"
[ -s "$relmap" ] && echo "  relmap    $relmap"
$report_ok && echo "  report    $rundir/report.txt"
[ -s "$rundir/report.json" ] && echo "  JSON      $rundir/report.json"
echo "  run JSON  $rundir/run.json"
echo "  logs      $rundir/{postgres,initdb,pgbench-*,dutfs}.log"
