# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the dutfs integration tests (sourced, bash).
#
# - Skips: dut_skip REASON exits 77; dut_need_root, dut_need_prog, dut_need_dutfs.
# - enable_uring: with DUTFS_TRANSPORT=uring the value of the fuse module's
#   enable_uring is put back at exit (dut_keep_enable_uring, below).
# - Cleanup: dut_tmpdir sets T to a fresh directory; dut_defer CMD... registers
#   a command; they run in reverse order
#   on EXIT, INT and TERM, so every mount and server a test starts is torn
#   down even when it fails or is interrupted.
# - dutfs: dut_mount BACKING MNT [dutfs options], dut_umount MNT, dut_is_mounted MNT.
# - PostgreSQL: pg_setup DIR (picks a port and a private socket dir),
#   pg_initdb, pg_start, pg_stop, pg_kill, psql_q SQL.
# Every wait is bounded (timeout(1) or a counted loop).

set -u
set -o pipefail

DUT_BUILD_ROOT=${DUT_BUILD_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../build" 2>/dev/null && pwd)}
DUTFS=${DUTFS:-$DUT_BUILD_ROOT/fuse/dutfs}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
DUT_TEST_NAME=${DUT_TEST_NAME:-$(basename "$0" .sh)}

say() { printf '%s: %s\n' "$DUT_TEST_NAME" "$*"; }
die() { printf '%s: FAIL: %s\n' "$DUT_TEST_NAME" "$*" >&2; exit 1; }
dut_skip() { printf '%s: SKIP: %s\n' "$DUT_TEST_NAME" "$*"; exit 77; }

dut_need_root() {
	[ "$(id -u)" -eq 0 ] || dut_skip "needs root (FUSE mounts with allow_other, PostgreSQL as user postgres)"
	[ -c /dev/fuse ] || dut_skip "no /dev/fuse"
}

dut_need_prog() { # NAME PATH_OR_COMMAND
	command -v "$2" >/dev/null 2>&1 || dut_skip "$1 not found ($2); install it (tools/setup)"
}

dut_need_dutfs() {
	[ -x "$DUTFS" ] || dut_skip "dutfs is not built at $DUTFS (build it: ninja -C BUILD fuse/dutfs)"
}

dut_need_pg() {
	local p
	for p in initdb pg_ctl pgbench pg_amcheck psql; do
		[ -x "$PGBIN/$p" ] || dut_skip "PostgreSQL 15 is not installed ($PGBIN/$p missing: apt-get install postgresql-15 postgresql-contrib)"
	done
	id postgres >/dev/null 2>&1 || dut_skip "no user postgres (install postgresql-15)"
}

# ---- cleanup stack ----
DUT_DEFERRED=()
dut_defer() { DUT_DEFERRED+=("$*"); }
dut_run_deferred() {
	local rc=$? i
	trap - EXIT INT TERM
	for ((i = ${#DUT_DEFERRED[@]} - 1; i >= 0; i--)); do
		eval "${DUT_DEFERRED[$i]}" || true
	done
	DUT_DEFERRED=()
	exit "$rc"
}
trap dut_run_deferred EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the fuse module's enable_uring ----
# dutfs --transport uring (and DUTFS_TRANSPORT=uring, the suites' second run)
# as root turns the global enable_uring on and leaves it on
# (fuse/uring_choose.c).  A test that can make it do so keeps the value it
# found: dut_keep_enable_uring, which lib.sh calls itself when
# DUTFS_TRANSPORT=uring.  The value goes back at exit, pass or fail (the
# cleanup stack; as its first entry it runs after the unmounts).
# Tests of other worktrees run on this machine at the same time and the
# parameter is global, so the first of overlapping tests records the value
# ($DUT_URING_STATE.saved) and the last one to end puts it back: no test
# turns the ring off under another's mount.  Each test leaves its pid in
# $DUT_URING_STATE.users/ while it runs (a pid that is gone, a test killed
# before its cleanup, does not count); $DUT_URING_STATE.lock orders the
# starts and ends.  (Pids rather than a shared flock: every daemon a test
# starts would inherit the lock's descriptor and could outlive the test.)
DUT_URING_PARAM=${DUT_URING_PARAM:-/sys/module/fuse/parameters/enable_uring}
DUT_URING_STATE=${DUT_URING_STATE:-/run/lock/dutlab-enable_uring}
DUT_URING_KEPT=0

# How many other tests keep enable_uring now (the pid files of ended ones are removed).
dut_uring_others() {
	local f pid n=0
	for f in "$DUT_URING_STATE.users"/*; do
		[ -e "$f" ] || continue
		pid=${f##*/}
		[ "$pid" = $$ ] && continue
		if kill -0 "$pid" 2>/dev/null; then
			n=$((n + 1))
		else
			rm -f "$f"
		fi
	done
	echo "$n"
}

dut_keep_enable_uring() {
	local m
	[ -w "$DUT_URING_PARAM" ] || return 0   # no ring in this kernel, or not root: nothing to change
	[ "$DUT_URING_KEPT" = 0 ] || return 0
	mkdir -p "$DUT_URING_STATE.users" || die "cannot create $DUT_URING_STATE.users"
	exec {m}>>"$DUT_URING_STATE.lock" || die "cannot open $DUT_URING_STATE.lock"
	flock -w 60 "$m" || die "$DUT_URING_STATE.lock held for 60 s (a test stuck in its start or cleanup?)"
	# the first test in (a recorded value with nobody left to use it is stale)
	if [ "$(dut_uring_others)" = 0 ] || ! [ -s "$DUT_URING_STATE.saved" ]; then
		cat "$DUT_URING_PARAM" >"$DUT_URING_STATE.saved" || die "cannot read $DUT_URING_PARAM"
	fi
	: >"$DUT_URING_STATE.users/$$" || die "cannot write $DUT_URING_STATE.users/$$"
	exec {m}>&-
	DUT_URING_KEPT=1
	dut_defer dut_restore_enable_uring
}

dut_restore_enable_uring() {
	local m saved now
	[ "$DUT_URING_KEPT" = 1 ] || return 0
	DUT_URING_KEPT=0
	exec {m}>>"$DUT_URING_STATE.lock" || return 1
	if ! flock -w 60 "$m"; then
		say "warning: $DUT_URING_STATE.lock held for 60 s; enable_uring left at $(cat "$DUT_URING_PARAM")"
		rm -f "$DUT_URING_STATE.users/$$"
		exec {m}>&-
		return 1
	fi
	rm -f "$DUT_URING_STATE.users/$$"
	if [ "$(dut_uring_others)" = 0 ]; then   # the last test out
		saved=$(cat "$DUT_URING_STATE.saved" 2>/dev/null)
		now=$(cat "$DUT_URING_PARAM")
		if [ -n "$saved" ] && [ "$saved" != "$now" ]; then
			if echo "$saved" >"$DUT_URING_PARAM"; then
				say "enable_uring put back to $saved (it was $now)"
			else
				say "warning: cannot put enable_uring back to $saved"
			fi
		fi
		rm -f "$DUT_URING_STATE.saved"
	fi
	exec {m}>&-
}
[ "${DUTFS_TRANSPORT:-}" != uring ] || dut_keep_enable_uring

# T = a fresh directory under /var/tmp (a real file system: FUSE backing dirs
# and PostgreSQL want one), traversable by postgres, removed at exit.  (Not
# a $(...) function: the removal must be deferred in this shell.)
dut_tmpdir() {
	T=$(mktemp -d /var/tmp/dutlab-test.XXXXXX) || die "mktemp failed"
	chmod 755 "$T"
	dut_defer "rm -rf '$T'"
}

# ---- mounts ----
# mountinfo writes a space in a path as \040 (through ENVIRON: awk -v would undo the escape)
dut_is_mounted() { # MNT
	M=${1// /\\040} awk '$5 == ENVIRON["M"] { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# Wait (up to $2 seconds, default 30) for a process to exit.
dut_wait_pid() { # PID [SECONDS]
	local pid=$1 n=$(( ${2:-30} * 10 ))
	while kill -0 "$pid" 2>/dev/null && [ "$n" -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	! kill -0 "$pid" 2>/dev/null
}

# Unmount and wait for the daemon to finish its trace.  Falls back to a lazy
# unmount and SIGKILL so that a broken daemon never hangs the test.
# Returns 1 when anything had to be forced.
dut_umount() { # MNT
	local mnt=$1 pidfile="$1.pid" pid="" forced=0
	[ -s "$pidfile" ] && pid=$(cat "$pidfile")
	if dut_is_mounted "$mnt"; then
		if ! timeout 30 umount "$mnt" 2>/dev/null; then
			say "umount $mnt failed; lazy unmount"
			timeout 10 umount -l "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null
			forced=1
		fi
	fi
	if [ -n "$pid" ] && ! dut_wait_pid "$pid" 30; then
		say "dutfs (pid $pid) still running 30 s after unmount; SIGKILL"
		kill -9 "$pid" 2>/dev/null
		dut_wait_pid "$pid" 5
		forced=1
	fi
	rm -f "$pidfile"
	return $forced
}

# Mount dutfs (daemonised; it returns once the mount is live).  The pid goes
# to MNT.pid; the unmount is deferred.  Extra arguments go to dutfs.
dut_mount() { # BACKING MNT [dutfs options...]
	local backing=$1 mnt=$2
	shift 2
	mkdir -p "$backing" "$mnt"
	dut_defer "dut_umount '$mnt'"
	timeout 30 "$DUTFS" "$backing" "$mnt" --pidfile "$mnt.pid" "$@" \
		|| die "dutfs $backing $mnt $* failed (exit $?)"
	dut_is_mounted "$mnt" || die "dutfs returned 0 but $mnt is not in /proc/self/mountinfo"
	[ -s "$mnt.pid" ] || die "dutfs did not write its --pidfile $mnt.pid"
	dut_check_transport "$mnt"
}

# With DUTFS_TRANSPORT=uring (the suites' second run, tests/fuse/meson.build)
# a mount that fell back to /dev/fuse would test the wrong transport: fail.
dut_check_transport() { # MNT
	local got
	[ "${DUTFS_TRANSPORT:-}" = uring ] || return 0
	dut_need_prog jq jq
	got=$(jq -r '.transport.name // "none"' "$1/.dutfs/stats.json" 2>/dev/null)
	[ "$got" = uring ] || die "DUTFS_TRANSPORT=uring but the mount uses \"$got\": $(jq -r '.transport.fallback_reason // ""' "$1/.dutfs/stats.json" 2>/dev/null)"
	# opens within 50 ms share one stats.json snapshot (fuse/ctl.c): the test's own
	# first read must not get this one
	sleep 0.1
}

# ---- PostgreSQL ----
dut_free_port() {
	local p tries=200
	while [ $tries -gt 0 ]; do
		p=$(( 20000 + RANDOM % 30000 ))
		if ! ss -Htan "sport = :$p" 2>/dev/null | grep -q .; then
			printf '%s\n' "$p"
			return 0
		fi
		tries=$((tries - 1))
	done
	die "no free TCP port found"
}

as_pg() { runuser -u postgres -- "$@"; }

# pg_setup PGDATA: sets PGDATA, PGPORT, PGSOCK (a private socket dir) and
# PGLOG, and defers a forced stop.
pg_setup() {
	PGDATA=$1
	PGPORT=$(dut_free_port)
	PGSOCK=$(mktemp -d /tmp/dutlab-pgsock.XXXXXX)
	chown postgres: "$PGSOCK"
	PGLOG=${PGLOG:-$(dirname "$PGDATA")/postgres.log}
	export PGDATA PGPORT PGSOCK PGLOG
	dut_defer "pg_kill; rm -rf '$PGSOCK'"
}

pg_initdb() { # [extra initdb args]
	mkdir -p "$PGDATA" && chown postgres: "$PGDATA" && chmod 700 "$PGDATA" || die "cannot create $PGDATA"
	as_pg timeout 120 "$PGBIN/initdb" -D "$PGDATA" --data-checksums -A trust -U postgres \
		--no-instructions "$@" >"$PGDATA.initdb.log" 2>&1 \
		|| { tail -20 "$PGDATA.initdb.log" >&2; die "initdb on $PGDATA failed"; }
}

pg_start() { # [extra -c settings as "-c name=value" words]
	touch "$PGLOG" && chown postgres: "$PGLOG"
	as_pg timeout 90 "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w -t 60 start \
		-o "-p $PGPORT -k $PGSOCK -c listen_addresses='' $*" >/dev/null \
		|| { tail -30 "$PGLOG" >&2; die "PostgreSQL did not start on $PGDATA"; }
}

pg_stop() { # [mode: fast|immediate]
	as_pg timeout 90 "$PGBIN/pg_ctl" -D "$PGDATA" -m "${1:-fast}" -w -t 60 stop >/dev/null
}

# The postmaster's pid, if it is running.
pg_postmaster_pid() {
	local pid
	[ -r "$PGDATA/postmaster.pid" ] || return 1
	pid=$(timeout 5 head -1 "$PGDATA/postmaster.pid" 2>/dev/null) || return 1
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && printf '%s\n' "$pid"
}

# Stop the server whatever state it (or its file system) is in: immediate
# stop, then SIGKILL the postmaster and its children.  Bounded.
pg_kill() {
	local pid kids
	[ -n "${PGDATA:-}" ] || return 0
	pid=$(pg_postmaster_pid) || pid=${PG_POSTMASTER_PID:-}
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
	as_pg timeout 20 "$PGBIN/pg_ctl" -D "$PGDATA" -m immediate -w -t 15 stop >/dev/null 2>&1
	if kill -0 "$pid" 2>/dev/null; then
		kids=$(pgrep -P "$pid")
		kill -9 "$pid" $kids 2>/dev/null
		dut_wait_pid "$pid" 10
	fi
}

psql_q() { # SQL [db]
	as_pg timeout 120 "$PGBIN/psql" -h "$PGSOCK" -p "$PGPORT" -d "${2:-postgres}" -XAtq -v ON_ERROR_STOP=1 -c "$1"
}

pg_bench() { # pgbench args... (bounded by PGBENCH_TIMEOUT seconds, default 120)
	as_pg timeout "${PGBENCH_TIMEOUT:-120}" "$PGBIN/pgbench" -h "$PGSOCK" -p "$PGPORT" "$@"
}

pg_amcheck_all() { # [db]
	as_pg timeout 150 "$PGBIN/pg_amcheck" -h "$PGSOCK" -p "$PGPORT" -d "${1:-postgres}" \
		--heapallindexed --install-missing
}
